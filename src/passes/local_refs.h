// What the sync passes see of an op's local-memory accesses: the root allocation each touches and the byte range in
// it, from the op table's effects. GM is not a hand-over between pipes here.
#pragma once

#include <optional>
#include <utility>
#include <vector>

#include "ir/ir.h"

namespace asc {

constexpr uint64_t kWholeTensor = UINT64_MAX;

// Where a local tensor lives: a root allocation and a byte range inside it.
struct MemRef {
  uint32_t root;  // 0: an absolute address in `memory`; else the allocating value
  uint64_t lo, hi;
  Memory memory = Memory::UB;  // of an absolute address: L1 address 0 is not L0A address 0
};

inline bool overlap(const MemRef& a, const MemRef& b) {
  return a.root == b.root && a.memory == b.memory && a.lo < b.hi && b.lo < a.hi;
}

class LocalRefs {
 public:
  explicit LocalRefs(const Kernel& kernel) : k_(kernel) {}

  // The value's constant, when a Const defines it.
  std::optional<int64_t> const_of(uint32_t v) const;
  // The whole of a local tensor value (through slices, reinterpretations and set_size).
  MemRef ref_of(uint32_t tensor) const;
  // The op's local-memory accesses (reference, is a write), narrowed to the elements it touches where the op table
  // knows them at compile time; anywhere in the tensor otherwise (the Model checks that they stay inside).
  std::vector<std::pair<MemRef, bool>> accesses(const Op& op) const;
  // The local tensors the op touches, whole.
  std::vector<MemRef> tensors(const Op& op) const;

 private:
  const Kernel& k_;
};

}  // namespace asc
