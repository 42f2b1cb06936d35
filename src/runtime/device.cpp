#include "runtime/device.h"

#include "runtime/arguments.h"

namespace asc {

void Device::check(const Kernel& kernel, uint32_t block_dim, const asc_arg_t* args, size_t n_args) const {
  check_launch(kernel, block_dim, args, n_args, takes_device_memory());
}

std::unique_ptr<Device> make_device(Backend backend, const Platform& platform, int32_t device_id) {
  return backend == Backend::NPU ? make_npu_device(platform, device_id) : make_model_device(platform);
}

}  // namespace asc
