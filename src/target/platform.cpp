#include "target/platform.h"

#include <string>

#include "support/error.h"

namespace asc {
namespace {

// Sources: CANN 8.1.RC1 platform_config/Ascend910B{1,2,3,4}.ini (ai_core_cnt,
// cube_core_cnt, vector_core_cnt, ub_size, l1_size, l0_a/b/c_size, cube_freq);
// event ids 0..7 per the Ascend C SetFlag/WaitFlag page for Atlas A2;
// 32-byte data block and 256-byte vector repeat from the Ascend C vector API
// general constraints.
constexpr uint64_t kUB = 196608, kL1 = 524288, kL0A = 65536, kL0B = 65536, kL0C = 131072;

PlatformInfo row(uint32_t aiv, uint32_t aic, double ghz) {
  return PlatformInfo{aiv, aic, kUB, kL1, kL0A, kL0B, kL0C, 32, 256, 8, ghz};
}

// Timing constants. Bandwidth: HBM at about 1.6 TB/s for the 910B parts (the
// design notes' starting value), i.e. 1.6e12 / clock bytes per cycle, shared
// by the active cores. The rest are estimates to be calibrated against a
// board, chosen so that relative costs follow the Ascend C performance
// guidance: one vector repeat (256 bytes) per cycle, data moves dominated by
// bandwidth plus a few hundred cycles of GM latency, flags costing tens of
// cycles, a launch costing a few microseconds.
CostModel cost(double ghz) {
  CostModel c{};
  c.scalar_issue = 1;
  c.scalar_memory = 10;
  c.flag_latency = 16;
  c.gm_latency = 300;
  c.gm_bytes_per_cycle = 1.6e12 / (ghz * 1e9);
  c.mte_bytes_per_cycle = 128;
  c.vector_startup = 12;
  c.vector_repeat = 1;
  c.vector_div_repeat = 4;
  c.ub_copy_bytes_per_cycle = 256;
  c.cube_startup = 32;  // estimate: the cube does 16 x 16 x 16 fp16 MACs per cycle (Atlas A2 cube unit)
  c.launch = static_cast<uint32_t>(3.0 * ghz * 1000);  // about 3 us
  return c;
}

}  // namespace

uint64_t memory_bytes(const PlatformInfo& info, Memory m) {
  switch (m) {
    case Memory::UB: return info.ub_bytes;
    case Memory::L1: return info.l1_bytes;
    case Memory::L0A: return info.l0a_bytes;
    case Memory::L0B: return info.l0b_bytes;
    case Memory::L0C: return info.l0c_bytes;
    case Memory::BT: return 1024;  // the bias table: 1 KiB on Atlas A2 (Ascend C TPosition C2 notes)
    case Memory::Count: break;
  }
  return 0;
}

const std::vector<Platform>& platforms() {
  static const std::vector<Platform> table = {
      {"Ascend910B1", row(48, 24, 1.85), cost(1.85)},
      {"Ascend910B2", row(48, 24, 1.80), cost(1.80)},
      {"Ascend910B3", row(40, 20, 1.80), cost(1.80)},
      {"Ascend910B4", row(40, 20, 1.50), cost(1.50)},
  };
  return table;
}

const Platform* find_platform(std::string_view name) {
  for (const auto& p : platforms())
    if (name == p.name) return &p;
  return nullptr;
}

const Platform& platform_named(std::string_view name) {
  const Platform* p = find_platform(name);
  if (!p) fail(ASC_ERR_INVALID_ARGUMENT, "unknown platform '{}' (known: {})", name, known_platform_names());
  return *p;
}

std::string known_platform_names() {
  std::string s;
  for (const auto& p : platforms()) s += std::string(s.empty() ? "" : ", ") + p.name;
  return s;
}

}  // namespace asc
