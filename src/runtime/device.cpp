#include "runtime/device.h"

#include "runtime/arguments.h"

namespace asc {

void Device::check(const Kernel& kernel, uint32_t block_dim, const asc_arg_t* args, size_t n_args) const {
  check_launch(kernel, block_dim, args, n_args, takes_device_memory());
}

}  // namespace asc
