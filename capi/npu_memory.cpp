// NPU device memory, device binaries and device queries (since 1.12): argument checks and conversions; the device (the
// NPU's through ACL, runtime/acl/acl_memory.h) does the work.
#include <string>

#include "handles.h"

using namespace asc;
using capi::guard;
using capi::require;

extern "C" {

asc_status_t asc_device_malloc(asc_device_t* device, uint64_t size, uint32_t policy, void** out) {
  return guard([&] {
    require(out, "out");
    *out = capi::live(device, "device")->device->allocate_memory(size, policy);
  });
}

asc_status_t asc_device_free(asc_device_t* device, void* ptr) {
  return guard([&] { capi::live(device, "device")->device->free_memory(ptr); });
}

asc_status_t asc_device_memcpy(asc_device_t* device, void* dst, uint64_t dst_max, const void* src, uint64_t count,
                               uint32_t kind) {
  return guard([&] { capi::live(device, "device")->device->copy_memory(dst, dst_max, src, count, kind); });
}

asc_status_t asc_device_load_binary(asc_device_t* device, const void* data, size_t len, void** out) {
  return guard([&] {
    require(out, "out");
    *out = capi::live(device, "device")->device->load_binary(data, len);
  });
}

asc_status_t asc_device_binary_function(asc_device_t* device, void* binary, const char* name, size_t name_len,
                                        void** out) {
  return guard([&] {
    require(out, "out");
    asc_device* d = capi::live(device, "device");
    *out = d->device->binary_function(binary, std::string(capi::text(name, name_len, "name")));
  });
}

asc_status_t asc_device_unload_binary(asc_device_t* device, void* binary) {
  return guard([&] { capi::live(device, "device")->device->unload_binary(binary); });
}

asc_status_t asc_device_launch_function(asc_device_t* device, void* function, uint32_t block_dim, const asc_arg_t* args,
                                        size_t n_args) {
  return guard([&] { capi::live(device, "device")->device->launch_function(function, block_dim, args, n_args); });
}

asc_status_t asc_npu_device_count(uint32_t* out) {
  return guard([&] {
    require(out, "out");  // before ACL is loaded: a null `out` is the caller's error whether or not CANN is there
    *out = npu_device_count();
  });
}

asc_status_t asc_npu_device_info(int32_t device_id, uint32_t info, int64_t* out) {
  return guard([&] {
    require(out, "out");
    *out = npu_device_info(device_id, info);
  });
}

}  // extern "C"
