#include "sim/platform.h"

#include <string>

namespace asc {
namespace {

// Sources: CANN 8.1.RC1 platform_config/Ascend910B{1,2,3,4}.ini (ai_core_cnt,
// cube_core_cnt, vector_core_cnt, ub_size, l1_size, l0_a/b/c_size, cube_freq);
// event ids 0..7 per the Ascend C SetFlag/WaitFlag page for Atlas A2;
// 32-byte data block and 256-byte vector repeat from the Ascend C vector API
// general constraints.
constexpr uint64_t kUB = 196608, kL1 = 524288, kL0A = 65536, kL0B = 65536, kL0C = 131072;

asc_platform_info_t row(uint32_t aiv, uint32_t aic, double ghz) {
  return asc_platform_info_t{aiv, aic, kUB, kL1, kL0A, kL0B, kL0C, 32, 256, 8, ghz};
}

}  // namespace

const std::vector<Platform>& platforms() {
  static const std::vector<Platform> table = {
      {"Ascend910B1", row(48, 24, 1.85)},
      {"Ascend910B2", row(48, 24, 1.80)},
      {"Ascend910B3", row(40, 20, 1.80)},
      {"Ascend910B4", row(40, 20, 1.50)},
  };
  return table;
}

const Platform* find_platform(std::string_view name) {
  for (const auto& p : platforms())
    if (name == p.name) return &p;
  return nullptr;
}

std::string known_platform_names() {
  std::string s;
  for (const auto& p : platforms()) s += std::string(s.empty() ? "" : ", ") + p.name;
  return s;
}

}  // namespace asc
