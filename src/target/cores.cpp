#include "target/cores.h"

#include <fmt/format.h>

namespace asc {

std::vector<CoreInstance> core_instances(KernelType type, uint32_t block_dim) {
  uint32_t aivs_per_group = 0, aics_per_group = 0;
  switch (type) {
    case KernelType::AivOnly:
    case KernelType::MixAivHardSync:
    case KernelType::MixAiv1_0: aivs_per_group = 1; break;
    case KernelType::AicOnly:
    case KernelType::MixAicHardSync:
    case KernelType::MixAic1_0: aics_per_group = 1; break;
    case KernelType::MixAic1_1: aics_per_group = aivs_per_group = 1; break;
    case KernelType::MixAic1_2: aics_per_group = 1, aivs_per_group = 2; break;
  }
  std::vector<CoreInstance> out;
  out.reserve(static_cast<size_t>(block_dim) * (aivs_per_group + aics_per_group));
  for (uint32_t g = 0; g < block_dim; ++g) {
    if (aics_per_group) out.push_back({CoreKind::AIC, g, 0, 1, block_dim, g, out.size()});
    for (uint32_t s = 0; s < aivs_per_group; ++s)
      out.push_back(
          {CoreKind::AIV, g * aivs_per_group + s, s, aivs_per_group, block_dim * aivs_per_group, g, out.size()});
  }
  return out;
}

const char* core_kind_name(CoreKind kind) { return kind == CoreKind::AIV ? "AIV" : "AIC"; }

std::string core_label(KernelType type, const CoreInstance& c) {
  if (type == KernelType::AivOnly) return fmt::format("block {}", c.block_idx);
  return fmt::format("{} {}", core_kind_name(c.kind), c.block_idx);
}

}  // namespace asc
