// A launch's arguments against the kernel's parameters: their count, each
// one's kind (scalar or buffer) and dtype, and no null buffer with a size.
// One check for every device, so the Model and the NPU say the same.
#pragma once

#include <cstddef>

#include "asc/asc.h"
#include "ir/ir.h"

namespace asc {

// Throws Error(ASC_ERR_TYPE / ASC_ERR_INVALID_ARGUMENT). NPU memory
// (ASC_ARG_DEVICE_BUFFER) is a buffer only where `device_memory` is true.
void check_arguments(const Kernel& kernel, const asc_arg_t* args, size_t n_args, bool device_memory);

}  // namespace asc
