// Platforms, devices, streams and launch.
#include <algorithm>
#include <cstdlib>
#include <vector>

#include "handles.h"
#include "runtime/profile_writer.h"

using namespace asc;
using capi::guard;
using capi::require;

namespace {

// What the last launch left on a stream is read once an asynchronous stream's
// queue ran, and under the stream's report lock (held by the returned guard).
std::unique_lock<std::mutex> settled(const asc_stream* stream) {
  require(stream, "stream");
  if (stream->queue) stream->queue->wait_idle();
  return std::unique_lock<std::mutex>(stream->report_mutex);
}

void fill_stats(const LaunchReport& r, asc_launch_stats_t* out) {
  *out = asc_launch_stats_t{};
  out->cycles = r.cycles;
  out->duration_us = r.duration_us;
  out->blocks = r.blocks;
  out->n_warnings = static_cast<uint32_t>(r.warnings.size());
  for (size_t p = 0; p < kPipeSlots; ++p) out->busy_cycles[p] = r.busy[p];
}

// Runs one launch and leaves its report on the stream. Launches on an
// asynchronous stream (on its queue's thread) add their output and warnings
// to those of the others since the last synchronize.
void run_launch(asc_stream& stream, const Kernel& kernel, uint32_t block_dim, const asc_arg_t* args, size_t n_args,
                LaunchOptions options, const std::string& profile_dir) {
  std::lock_guard<std::mutex> lock(stream.report_mutex);
  const bool batch = stream.queue != nullptr;
  if (!batch || stream.batch_done) {
    stream.output.clear();
    stream.last.warnings.clear();
    stream.batch_done = false;
  }
  std::string output;
  options.output = &output;
  std::vector<std::string> warnings = stream.last.warnings;
  Device& device = *stream.device->device;
  struct Append {  // the output is the stream's even when the launch fails
    std::string& to;
    std::string& from;
    ~Append() { to += from; }
  } append{stream.output, output};
  stream.last = device.launch(kernel, block_dim, args, n_args, options);
  for (auto& w : stream.last.warnings)
    if (std::find(warnings.begin(), warnings.end(), w) == warnings.end()) warnings.push_back(std::move(w));
  stream.last.warnings = std::move(warnings);
  if (stream.stats_sink) fill_stats(stream.last, stream.stats_sink);
  if (options.record) write_profile(profile_dir, kernel, device.platform(), stream.last);
}

}  // namespace

extern "C" {

size_t asc_platform_count(void) { return platforms().size(); }

const char* asc_platform_name(size_t index) { return index < platforms().size() ? platforms()[index].name : nullptr; }

asc_status_t asc_platform_query(const char* name, size_t name_len, asc_platform_info_t* out) {
  return guard([&] {
    require(out, "out");
    std::string_view n = capi::text(name, name_len, "platform name");
    const Platform* p = find_platform(n);
    if (!p) fail(ASC_ERR_INVALID_ARGUMENT, "unknown platform '{}' (known: {})", n, known_platform_names());
    *out = p->info;
  });
}

asc_status_t asc_device_create(uint32_t backend, const char* platform, size_t platform_len, int32_t device_id,
                               asc_device_t** out) {
  return guard([&] {
    require(out, "out");
    std::string_view n = capi::text(platform, platform_len, "platform name");
    const Platform* p = find_platform(n);
    if (!p) fail(ASC_ERR_INVALID_ARGUMENT, "unknown platform '{}' (known: {})", n, known_platform_names());
    std::unique_ptr<Device> d;
    if (backend == ASC_BACKEND_MODEL)
      d = make_model_device(*p);
    else if (backend == ASC_BACKEND_NPU)
      d = make_npu_device(*p, device_id);
    else
      fail(ASC_ERR_INVALID_ARGUMENT, "unknown backend {}", backend);
    *out = new asc_device{std::move(d)};
  });
}

asc_status_t asc_device_destroy(asc_device_t* device) {
  return guard([&] { delete require(device, "device"); });
}

}  // extern "C"

namespace {

// ASC_MAX_OPS: a whole number (0: no limit). Anything else fails stream creation rather than silently meaning
// "no limit" (strtoull gave 0 for text) or a huge limit (it wrapped negative numbers).
uint64_t parse_max_ops(const char* text) {
  std::string s(text);
  bool digits = !s.empty() && s.size() <= 19 && s.find_first_not_of("0123456789") == std::string::npos;
  if (!digits)
    fail(ASC_ERR_INVALID_ARGUMENT, "ASC_MAX_OPS must be a whole number of operations (0: no limit), not '{}'", s);
  return std::stoull(s);
}

}  // namespace

extern "C" {

asc_status_t asc_stream_create(asc_device_t* device, asc_stream_t** out) {
  return guard([&] {
    require(out, "out");
    auto stream = std::make_unique<asc_stream>();
    stream->device = require(device, "device");
    const char* sanitize = std::getenv("ASC_SANITIZE");
    stream->options.sanitize = !(sanitize && std::string(sanitize) == "0");
    const char* profile = std::getenv("ASC_PROFILE");
    if (profile) stream->profile_dir = profile;
    if (const char* max_ops = std::getenv("ASC_MAX_OPS")) stream->options.max_ops = parse_max_ops(max_ops);
    *out = stream.release();
  });
}

asc_status_t asc_stream_set_option(asc_stream_t* stream, const char* name, size_t name_len, int64_t value) {
  return guard([&] {
    require(stream, "stream");
    std::string_view n = capi::text(name, name_len, "name");
    if (n == "sanitize") {
      stream->options.sanitize = value != 0;
    } else if (n == "max_ops") {
      if (value < 0) fail(ASC_ERR_INVALID_ARGUMENT, "stream option max_ops must be >= 0 (0: no limit), not {}", value);
      stream->options.max_ops = static_cast<uint64_t>(value);
    } else if (n == "async") {
      if (value && !stream->queue) {
        stream->queue = std::make_unique<StreamQueue>();
      } else if (!value && stream->queue) {
        stream->queue->synchronize();  // its failure, if any, is this call's
        stream->queue.reset();
        stream->batch_done = true;
      }
    } else {
      fail(ASC_ERR_INVALID_ARGUMENT, "unknown stream option '{}' (known: sanitize, async, max_ops)", n);
    }
  });
}

asc_status_t asc_stream_set_profile_dir(asc_stream_t* stream, const char* dir, size_t dir_len) {
  return guard([&] { require(stream, "stream")->profile_dir = std::string(capi::text(dir, dir_len, "dir")); });
}

asc_status_t asc_stream_last_stats(const asc_stream_t* stream, asc_launch_stats_t* out) {
  return guard([&] {
    auto lock = settled(stream);
    const LaunchReport& last = stream->last;
    fill_stats(last, require(out, "out"));
  });
}

asc_status_t asc_stream_set_stats_sink(asc_stream_t* stream, asc_launch_stats_t* sink) {
  return guard([&] {
    require(stream, "stream");
    if (stream->queue) stream->queue->wait_idle();  // queued launches write the old sink
    stream->stats_sink = sink;
  });
}

asc_status_t asc_stream_last_warnings(const asc_stream_t* stream, char* buf, size_t cap, size_t* len) {
  asc_status_t status = ASC_OK;
  asc_status_t g = guard([&] {
    std::string text;
    auto lock = settled(stream);
    for (const auto& w : stream->last.warnings) text += w + "\n";
    status = capi::copy_out(text, buf, cap, len);
  });
  return g != ASC_OK ? g : status;
}

asc_status_t asc_stream_last_output(const asc_stream_t* stream, char* buf, size_t cap, size_t* len) {
  asc_status_t status = ASC_OK;
  asc_status_t g = guard([&] {
    auto lock = settled(stream);
    status = capi::copy_out(stream->output, buf, cap, len);
  });
  return g != ASC_OK ? g : status;
}

asc_status_t asc_stream_last_lines(const asc_stream_t* stream, char* buf, size_t cap, size_t* len) {
  asc_status_t status = ASC_OK;
  asc_status_t g = guard([&] {
    auto lock = settled(stream);
    status = capi::copy_out(lines_csv(stream->last), buf, cap, len);
  });
  return g != ASC_OK ? g : status;
}

asc_status_t asc_stream_destroy(asc_stream_t* stream) {
  return guard([&] { delete require(stream, "stream"); });
}

asc_status_t asc_stream_synchronize(asc_stream_t* stream) {
  return guard([&] {
    require(stream, "stream");
    struct EndBatch {  // once the queue ran, even when it reports a failure: the next launch starts anew
      asc_stream& s;
      ~EndBatch() { s.batch_done = true; }
    } end{*stream};
    if (stream->queue) stream->queue->synchronize();
    stream->device->device->synchronize();
  });
}

asc_status_t asc_launch(const asc_kernel_t* kernel, asc_stream_t* stream, uint32_t block_dim, const asc_arg_t* args,
                        size_t n_args) {
  return guard([&] {
    const auto* k = reinterpret_cast<const Kernel*>(require(kernel, "kernel"));
    require(stream, "stream");
    LaunchOptions options = stream->options;
    options.record = !stream->profile_dir.empty();
    if (!stream->queue) {
      run_launch(*stream, *k, block_dim, args, n_args, options, stream->profile_dir);
      return;
    }
    // Asynchronous: what can be checked now is (the caller's error, at the call); the rest runs queued.
    stream->device->device->check(*k, block_dim, args, n_args);
    stream->queue->push([stream, k, block_dim, options, args = std::vector<asc_arg_t>(args, args + n_args),
                         profile_dir = stream->profile_dir] {
      run_launch(*stream, *k, block_dim, args.data(), args.size(), options, profile_dir);
    });
  });
}

}  // extern "C"
