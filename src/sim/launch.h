// Runs a kernel on the Model: binds the arguments (which the caller checked
// against the kernel's parameters, runtime/arguments.h), runs every block on
// the shared thread pool, checks GM hazards between blocks (gm_hazards.h) and
// summarises the timing.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "asc/asc.h"
#include "ir/ir.h"
#include "sim/block.h"
#include "sim/timing.h"
#include "target/platform.h"

namespace asc::sim {

struct LaunchReport {
  uint64_t cycles = 0;  // launch cost + the blocks, in waves of the platform's vector cores
  double duration_us = 0;
  uint32_t blocks = 0;
  std::array<uint64_t, kPipeSlots> busy{};  // summed over blocks
  std::vector<std::string> warnings;
  std::vector<LineCost> per_op;  // by Op::index, summed over blocks (the runtime groups them by source line)
  struct Event {
    uint32_t block;
    Pipe pipe;
    uint64_t start, end;  // cycles from the launch's start
    const Op* op;
  };
  std::vector<Event> events;  // only when LaunchOptions::record
};

// `block_dim` and the arguments must have passed runtime's check_launch (the Model devices make it).
LaunchReport run_kernel(const Kernel& kernel, const Platform& platform, uint32_t block_dim, const asc_arg_t* args,
                        size_t n_args, const LaunchOptions& options);

}  // namespace asc::sim
