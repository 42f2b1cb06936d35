#include "ir/param_access.h"

#include <cstdint>

namespace asc {
namespace {

bool is_gm(const Type& t) { return t.kind == TypeKind::GmAddr || t.kind == TypeKind::GlobalTensor; }

// The parameters a GM value derives from, as bits (empty: none).
using Params = std::vector<uint64_t>;

bool merge(Params& into, const Params& from) {
  if (from.empty()) return false;
  if (into.size() < from.size()) into.resize(from.size(), 0);
  bool changed = false;
  for (size_t w = 0; w < from.size(); ++w) {
    uint64_t next = into[w] | from[w];
    changed |= next != into[w];
    into[w] = next;
  }
  return changed;
}

}  // namespace

std::vector<bool> param_writes(const Kernel& kernel) {
  const size_t n_values = kernel.value_types.size();
  std::vector<Params> from(n_values);
  for (size_t p = 0; p < kernel.num_params && p < n_values; ++p) {
    if (!is_gm(kernel.value_types[p])) continue;
    from[p].assign(kernel.num_params / 64 + 1, 0);
    from[p][p / 64] |= uint64_t{1} << (p % 64);
  }
  // A GM result derives from its op's GM operands; `assign` to a variable adds its source's parameters
  // (a loop may assign after a use in program order: repeat until nothing changes).
  for (bool changed = true; changed;) {
    changed = false;
    for (const Op* op : kernel.ops) {
      if (op->code == OpCode::Assign && op->operands.size() == 2) {
        uint32_t dst = op->operands[0], src = op->operands[1];
        if (dst < n_values && src < n_values && is_gm(kernel.value_types[dst])) changed |= merge(from[dst], from[src]);
        continue;
      }
      if (op->result >= n_values || !is_gm(kernel.value_types[op->result])) continue;
      for (uint32_t v : op->operands)
        if (v < n_values && is_gm(kernel.value_types[v])) changed |= merge(from[op->result], from[v]);
    }
  }
  std::vector<bool> writes(kernel.num_params, false);
  for (const Op* op : kernel.ops) {
    for (const MemEffect& e : op->info().effects) {
      if (!e.write || e.tensor >= op->operands.size()) continue;
      uint32_t v = op->operands[e.tensor];
      if (v >= n_values || !is_gm(kernel.value_types[v])) continue;
      const Params& params = from[v];
      for (size_t p = 0; p < kernel.num_params; ++p)
        if (p / 64 < params.size() && (params[p / 64] >> (p % 64) & 1)) writes[p] = true;
    }
  }
  return writes;
}

}  // namespace asc
