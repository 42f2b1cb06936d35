// Platforms, devices, streams and launch.
#include <algorithm>
#include <cstring>
#include <memory>
#include <string>

#include "convert.h"
#include "handles.h"
#include "runtime/profile_writer.h"

using namespace asc;
using capi::guard;
using capi::require;

namespace {

void fill_sink(const LaunchReport& r, void* sink) { capi::stats_to_c(r, static_cast<asc_launch_stats_t*>(sink)); }

Stream& unwrap(asc_stream_t* stream) { return capi::live(stream, "stream")->stream; }
const Stream& unwrap(const asc_stream_t* stream) { return capi::live(stream, "stream")->stream; }

}  // namespace

extern "C" {

size_t asc_platform_count(void) { return platforms().size(); }

const char* asc_platform_name(size_t index) { return index < platforms().size() ? platforms()[index].name : nullptr; }

asc_status_t asc_platform_query(const char* name, size_t name_len, asc_platform_info_t* out) {
  return guard([&] {
    require(out, "out");
    *out = capi::platform_info_to_c(platform_named(capi::text(name, name_len, "platform name")).info);
  });
}

asc_status_t asc_platform_figure(const char* name, size_t name_len, const char* key, size_t key_len, double* out) {
  return guard([&] {
    require(out, "out");
    const Platform& p = platform_named(capi::text(name, name_len, "platform name"));
    std::string what(capi::text(key, key_len, "figure"));
    const CostModel& c = p.cost;
    if (what == "hbm_bytes_per_second")
      *out = c.gm_bytes_per_cycle * p.info.clock_ghz * 1e9;
    else if (what == "mte_bytes_per_cycle")
      *out = c.mte_bytes_per_cycle;
    else if (what == "vector_bytes_per_cycle")
      *out = static_cast<double>(p.info.repeat_bytes) / c.vector_repeat;
    else if (what == "cube_f16_macs_per_cycle")
      *out = 16.0 * 16.0 * 16.0;  // one 16 x 16 x 16 fractal product per cycle (CostKind::Cube's work unit)
    else
      fail(ASC_ERR_INVALID_ARGUMENT,
           "asc_platform_figure: no figure '{}' (hbm_bytes_per_second, mte_bytes_per_cycle, vector_bytes_per_cycle, "
           "cube_f16_macs_per_cycle)",
           what);
  });
}

asc_status_t asc_device_create(uint32_t backend, const char* platform, size_t platform_len, int32_t device_id,
                               asc_device_t** out) {
  return guard([&] {
    require(out, "out");
    const Platform& p = platform_named(capi::text(platform, platform_len, "platform name"));
    auto* d = new asc_device{make_device(capi::backend_from_c(backend), p, device_id)};
    try {
      capi::register_handle(d, capi::HandleKind::Device);
    } catch (...) {
      delete d;
      throw;
    }
    *out = d;
  });
}

// The device itself stays until its last stream is destroyed (each stream holds a share of it).
asc_status_t asc_device_destroy(asc_device_t* device) {
  return guard([&] {
    capi::unregister_handle(device, capi::HandleKind::Device, "device");
    delete device;
  });
}

asc_status_t asc_stream_create(asc_device_t* device, asc_stream_t** out) {
  return guard([&] {
    require(out, "out");
    capi::require_live(device, capi::HandleKind::Device, "device");
    auto s = std::make_unique<asc_stream>(device->device);
    capi::register_handle(s.get(), capi::HandleKind::Stream);
    *out = s.release();
  });
}

asc_status_t asc_stream_set_option(asc_stream_t* stream, const char* name, size_t name_len, int64_t value) {
  return guard([&] {
    Stream& s = unwrap(stream);
    s.set_option(capi::text(name, name_len, "name"), value);
  });
}

asc_status_t asc_stream_set_profile_dir(asc_stream_t* stream, const char* dir, size_t dir_len) {
  return guard([&] {
    Stream& s = unwrap(stream);
    s.set_profile_dir(std::string(capi::text(dir, dir_len, "dir")));
  });
}

asc_status_t asc_stream_last_stats(const asc_stream_t* stream, asc_launch_stats_t* out) {
  return guard([&] {
    unwrap(stream).read_last(
        [&](const LaunchReport& last, const std::string&) { capi::stats_to_c(last, require(out, "out")); });
  });
}

asc_status_t asc_stream_set_stats_sink(asc_stream_t* stream, asc_launch_stats_t* sink) {
  return guard([&] { unwrap(stream).set_report_sink(sink ? fill_sink : nullptr, sink); });
}

asc_status_t asc_stream_last_warnings(const asc_stream_t* stream, char* buf, size_t cap, size_t* len) {
  asc_status_t status = ASC_OK;
  asc_status_t g = guard([&] {
    std::string text;
    unwrap(stream).read_last([&](const LaunchReport& last, const std::string&) {
      for (const auto& w : last.warnings) text += w + "\n";
      status = capi::copy_out(text, buf, cap, len);
    });
  });
  return g != ASC_OK ? g : status;
}

asc_status_t asc_stream_last_output(const asc_stream_t* stream, char* buf, size_t cap, size_t* len) {
  asc_status_t status = ASC_OK;
  asc_status_t g = guard([&] {
    unwrap(stream).read_last(
        [&](const LaunchReport&, const std::string& output) { status = capi::copy_out(output, buf, cap, len); });
  });
  return g != ASC_OK ? g : status;
}

asc_status_t asc_stream_last_lines(const asc_stream_t* stream, char* buf, size_t cap, size_t* len) {
  asc_status_t status = ASC_OK;
  asc_status_t g = guard([&] {
    unwrap(stream).read_last(
        [&](const LaunchReport& last, const std::string&) { status = capi::copy_out(lines_csv(last), buf, cap, len); });
  });
  return g != ASC_OK ? g : status;
}

asc_status_t asc_stream_destroy(asc_stream_t* stream) {
  return guard([&] {
    capi::unregister_handle(stream, capi::HandleKind::Stream, "stream");
    delete stream;
  });
}

asc_status_t asc_device_set_npu_compiler(asc_device_t* device, asc_npu_compile_fn compile, void* user_data) {
  return guard([&] {
    asc_device* d = capi::live(device, "device");
    Device::NpuCompiler compiler;
    if (compile) {
      compiler = [compile, user_data](const Kernel& kernel) {
        // The object's path, or the compiler's message: PATH_MAX is room for a path; a longer message is cut.
        std::string buf(4096, '\0');
        size_t len = 0;
        auto* handle = reinterpret_cast<const asc_kernel_t*>(&kernel);
        asc_status_t status = compile(user_data, handle, buf.data(), buf.size(), &len);
        buf.resize(std::min(len, buf.size() - 1));
        buf.resize(std::strlen(buf.c_str()));
        if (status != ASC_OK) {
          if (buf.empty()) buf = fmt::format("the NPU compiler failed ({})", asc_status_name(status));
          fail(status, "Backend.NPU: compiling kernel '{}': {}", kernel.name, buf);
        }
        return buf;
      };
    }
    if (!d->device->set_npu_compiler(std::move(compiler)))
      fail(ASC_ERR_INVALID_ARGUMENT, "asc_device_set_npu_compiler: the Model backend compiles no kernels for the NPU");
  });
}

asc_status_t asc_stream_synchronize(asc_stream_t* stream) {
  return guard([&] { unwrap(stream).synchronize(); });
}

asc_status_t asc_launch(const asc_kernel_t* kernel, asc_stream_t* stream, uint32_t block_dim, const asc_arg_t* args,
                        size_t n_args) {
  return guard([&] {
    const Kernel& k = capi::live_kernel(kernel);
    unwrap(stream).launch(k, block_dim, args, n_args);
  });
}

asc_status_t asc_launch_with_stats(const asc_kernel_t* kernel, asc_stream_t* stream, uint32_t block_dim,
                                   const asc_arg_t* args, size_t n_args, asc_launch_stats_t* stats) {
  const asc_launch_request_t request{kernel, stream, block_dim, args, n_args, stats};
  return asc_launch_call(&request);
}

asc_status_t asc_launch_call(const asc_launch_request_t* call) {
  return guard([&] {
    const asc_launch_request_t& c = *require(call, "call");
    const Kernel& k = capi::live_kernel(c.kernel);
    unwrap(c.stream).launch(k, c.block_dim, c.args, c.n_args, c.stats ? fill_sink : nullptr, c.stats);
  });
}

}  // extern "C"
