// Platforms, devices, streams and launch.
#include "handles.h"

using namespace asc;
using capi::guard;
using capi::require;

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

asc_status_t asc_stream_create(asc_device_t* device, asc_stream_t** out) {
  return guard([&] {
    require(out, "out");
    *out = new asc_stream{require(device, "device")};
  });
}

asc_status_t asc_stream_destroy(asc_stream_t* stream) {
  return guard([&] { delete require(stream, "stream"); });
}

asc_status_t asc_stream_synchronize(asc_stream_t* stream) {
  return guard([&] { require(stream, "stream")->device->device->synchronize(); });
}

asc_status_t asc_launch(const asc_kernel_t* kernel, asc_stream_t* stream, uint32_t block_dim, const asc_arg_t* args,
                        size_t n_args) {
  return guard([&] {
    const auto* k = reinterpret_cast<const Kernel*>(require(kernel, "kernel"));
    require(stream, "stream")->device->device->launch(*k, block_dim, args, n_args);
  });
}

}  // extern "C"
