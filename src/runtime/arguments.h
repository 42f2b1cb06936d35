// A launch's arguments against the kernel's parameters: their count, each
// one's kind (scalar or buffer) and dtype, and no null buffer with a size.
// One check for every device (Device::launch makes it), so the Model and the
// NPU say the same.
#pragma once

#include <cstddef>
#include <cstdint>

#include "asc/asc.h"
#include "ir/ir.h"

namespace asc {

// Throws Error(ASC_ERR_TYPE / ASC_ERR_INVALID_ARGUMENT). NPU memory
// (ASC_ARG_DEVICE_BUFFER) is a buffer only where `device_memory` is true.
void check_arguments(const Kernel& kernel, const asc_arg_t* args, size_t n_args, bool device_memory);

// block_dim (1..65535), then the arguments: everything a launch checks before running anything. An asynchronous
// launch makes these checks at the call.
void check_launch(const Kernel& kernel, uint32_t block_dim, const asc_arg_t* args, size_t n_args, bool device_memory);

}  // namespace asc
