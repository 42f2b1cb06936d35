// Runs a kernel on the Model: validates the arguments against the kernel's
// parameters, then runs every block on the shared thread pool.
#pragma once

#include <cstdint>

#include "asc/asc.h"
#include "ir/ir.h"
#include "sim/platform.h"

namespace asc::sim {

void run_kernel(const Kernel& kernel, const Platform& platform, uint32_t block_dim, const asc_arg_t* args,
                size_t n_args);

}  // namespace asc::sim
