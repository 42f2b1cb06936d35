#include "passes/local_refs.h"

#include <algorithm>

#include "ir/effects.h"

namespace asc {

std::optional<int64_t> LocalRefs::const_of(uint32_t v) const {
  const Op* def = k_.value_def[v];
  if (!def || def->code != OpCode::Const) return std::nullopt;
  const Attr& a = def->attr(1);
  return a.kind == ASC_ATTR_INT ? a.i : static_cast<int64_t>(a.f);
}

MemRef LocalRefs::ref_of(uint32_t tensor) const {
  const Op* def = k_.value_def[tensor];
  if (!def) return {tensor, 0, kWholeTensor};
  if (def->code == OpCode::LocalSlice) {
    MemRef base = ref_of(def->operands[0]);
    auto off = const_of(def->operands[1]);
    if (!off || base.hi == kWholeTensor) return {base.root, base.lo, kWholeTensor, base.memory};
    uint64_t bytes = static_cast<uint64_t>(*off) * dtype_size(k_.type_of(tensor).dtype);
    return {base.root, base.lo + bytes, base.hi, base.memory};
  }
  if (def->code == OpCode::LocalReinterpret) return ref_of(def->operands[0]);  // the same bytes
  if (def->code == OpCode::LocalSetSize) {
    MemRef base = ref_of(def->operands[0]);
    auto len = const_of(def->operands[1]);
    if (!len || base.hi == kWholeTensor) return {base.root, base.lo, kWholeTensor, base.memory};
    return {base.root, base.lo, base.lo + static_cast<uint64_t>(*len) * dtype_size(k_.type_of(tensor).dtype),
            base.memory};
  }
  if (def->code == OpCode::LocalCreate) {
    auto addr = const_of(def->operands[0]);
    auto len = const_of(def->operands[1]);
    uint64_t bytes = len ? static_cast<uint64_t>(*len) * dtype_size(k_.type_of(tensor).dtype) : kWholeTensor;
    Memory memory = position_memory(k_.type_of(tensor).position);
    if (addr) return {0, static_cast<uint64_t>(*addr), bytes == kWholeTensor ? kWholeTensor : *addr + bytes, memory};
    return {tensor, 0, bytes};
  }
  return {tensor, 0, kWholeTensor};  // e.g. a mutable tensor variable
}

std::vector<std::pair<MemRef, bool>> LocalRefs::accesses(const Op& op) const {
  std::vector<std::pair<MemRef, bool>> out;
  for (const MemEffect& e : op.info().effects) {
    uint32_t t = op.operands[e.tensor];
    if (k_.type_of(t).kind != TypeKind::LocalTensor) continue;
    MemRef r = ref_of(t);
    auto span = static_effect(op, k_, static_cast<size_t>(&e - op.info().effects.data()));
    if (r.hi != kWholeTensor && span) {
      uint64_t size = dtype_size(k_.type_of(t).dtype);
      r.lo += static_cast<uint64_t>(span->offset) * size;
      r.hi = std::min(r.hi, r.lo + static_cast<uint64_t>(span->count) * size);
    }
    out.emplace_back(r, e.write);
  }
  return out;
}

std::vector<MemRef> LocalRefs::tensors(const Op& op) const {
  std::vector<MemRef> out;
  for (const MemEffect& e : op.info().effects) {
    uint32_t t = op.operands[e.tensor];
    if (k_.type_of(t).kind == TypeKind::LocalTensor) out.push_back(ref_of(t));
  }
  return out;
}

}  // namespace asc
