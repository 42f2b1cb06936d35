// The cores a launch runs on, from pyasc's KernelType: AIV-only kernels run
// block_dim vector cores (AIV), AIC-only ones block_dim cube cores (AIC), mix
// kernels block_dim groups of one AIC with one or two AIVs. A vector core has
// the Unified Buffer; a cube core has L1, L0A/L0B/L0C and the bias table.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ir/ir.h"

namespace asc {

enum class CoreKind : uint8_t { AIV, AIC };

struct CoreInstance {
  CoreKind kind;
  uint32_t block_idx;      // what get_block_idx returns: AIV of a 1:2 group = 2 * group + sub-block
  uint32_t sub_block_idx;  // 0, or 0/1 for the two AIVs of a 1:2 group
  uint32_t sub_block_num;  // AIVs per group seen from this core (1 on an AIC)
  uint32_t of;             // instances of this kind in the launch
  uint32_t group;          // the launch block (cube core + its vector cores) it belongs to
  size_t index;            // its place in the launch's instance list
};

std::vector<CoreInstance> core_instances(KernelType type, uint32_t block_dim);
inline bool is_mix(KernelType type) { return type == KernelType::MixAic1_1 || type == KernelType::MixAic1_2; }
// A mix kernel's vector cores also get cube memories: the Model runs each one's
// Matmul on a cube unit of its own (on the NPU the group's AIC serves them).
// (Inline: the Model asks it for every access to an on-chip memory.)
inline bool core_has_memory(KernelType type, CoreKind kind, Memory m) {
  if (kind == CoreKind::AIV && is_mix(type)) return true;
  return (kind == CoreKind::AIV) == (m == Memory::UB);
}
const char* core_kind_name(CoreKind kind);
// How errors and printf name an instance: "block 3" for AIV-only kernels, else "AIC 1" / "AIV 5".
std::string core_label(KernelType type, const CoreInstance& c);

}  // namespace asc
