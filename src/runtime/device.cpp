#include "runtime/device.h"

#include "runtime/arguments.h"
#include "support/error.h"

namespace asc {

void Device::check(const Kernel& kernel, uint32_t block_dim, const asc_arg_t* args, size_t n_args) const {
  check_launch(kernel, block_dim, args, n_args, takes_device_memory());
}

namespace {

[[noreturn]] void no_memory_of_its_own(const char* call) {
  fail(ASC_ERR_INVALID_ARGUMENT,
       "{}: the Model backend has no device memory of its own (its GM is the caller's host memory, passed to "
       "asc_launch as ASC_ARG_BUFFER); only Backend.NPU devices allocate and copy device memory",
       call);
}

[[noreturn]] void no_binaries(const char* call) {
  fail(ASC_ERR_INVALID_ARGUMENT,
       "{}: the Model backend runs the kernels asc builds, not device binaries; only Backend.NPU devices load them",
       call);
}

}  // namespace

void* Device::load_binary(const void*, size_t) { no_binaries("asc_device_load_binary"); }
void* Device::binary_function(void*, const std::string&) { no_binaries("asc_device_binary_function"); }
void Device::unload_binary(void*) { no_binaries("asc_device_unload_binary"); }
void Device::launch_function(void*, uint32_t, const asc_arg_t*, size_t) { no_binaries("asc_device_launch_function"); }

void* Device::allocate_memory(uint64_t, uint32_t) { no_memory_of_its_own("asc_device_malloc"); }
void Device::free_memory(void*) { no_memory_of_its_own("asc_device_free"); }
void Device::copy_memory(void*, uint64_t, const void*, uint64_t, uint32_t) {
  no_memory_of_its_own("asc_device_memcpy");
}

std::unique_ptr<Device> make_device(Backend backend, const Platform& platform, int32_t device_id) {
  return backend == Backend::NPU ? make_npu_device(platform, device_id) : make_model_device(platform);
}

}  // namespace asc
