// Per-SoC facts (the Model, the compile driver and the NPU backend read them): one row per platform.
#pragma once

#include <string_view>
#include <vector>

#include "asc/asc.h"
#include "ir/types.h"

namespace asc {

// Cycle costs of the timing model, at the platform clock. Each constant's
// source (or the reason for the estimate) is in platform.cpp.
struct CostModel {
  uint32_t scalar_issue;           // the scalar unit dispatching one instruction
  uint32_t scalar_memory;          // get_value / set_value on the Unified Buffer
  uint32_t flag_latency;           // set_flag to the waiting pipe seeing the flag
  uint32_t gm_latency;             // first byte of an MTE2/MTE3 transfer
  double gm_bytes_per_cycle;       // HBM bandwidth, shared by the active cores
  double mte_bytes_per_cycle;      // one core's MTE2/MTE3 peak
  uint32_t vector_startup;         // vector pipeline fill per instruction
  uint32_t vector_repeat;          // cycles per 256-byte repeat
  uint32_t vector_div_repeat;      // cycles per 256-byte repeat of div
  double ub_copy_bytes_per_cycle;  // also L1 -> L0 (MTE1)
  uint32_t cube_startup;           // cube pipeline fill per mmad (one 16 x 16 x C0 fractal per cycle after)
  uint32_t launch;                 // kernel launch, once per launch
};

struct Platform {
  const char* name;
  asc_platform_info_t info;
  CostModel cost;
};

// Bytes of a core's on-chip memory.
uint64_t memory_bytes(const asc_platform_info_t& info, Memory m);

const std::vector<Platform>& platforms();
const Platform* find_platform(std::string_view name);
std::string known_platform_names();

}  // namespace asc
