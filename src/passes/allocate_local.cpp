// Live ranges are intervals over the ops in program order. A tensor used in a
// loop that does not contain its definition lives until that loop ends (the
// loop reads it again on the next iteration). Placement is first fit over
// the ranges in order of start, 32-byte aligned.
#include "passes/allocate_local.h"

#include <algorithm>
#include <functional>
#include <map>

#include "passes/rewriter.h"

namespace asc {
namespace {

struct Interval {
  uint32_t value;
  Op* op;
  size_t start, end;
  int64_t bytes;
  int64_t addr = -1;
};

class Liveness {
 public:
  explicit Liveness(Kernel& k) : k_(k) {}

  std::vector<Interval> run() {
    walk(k_.body, {});
    std::vector<Interval> out;
    for (auto& [v, iv] : intervals_) out.push_back(iv);
    std::sort(out.begin(), out.end(), [](const Interval& a, const Interval& b) { return a.start < b.start; });
    return out;
  }

 private:
  // `loops`: the enclosing for ops' (start, end) positions, outermost first.
  void walk(Region& r, std::vector<std::pair<size_t, Op*>> loops) {
    for (auto& op : r.ops) {
      size_t pos = counter_++;
      if (op->code == OpCode::LocalAuto) {
        int64_t length = 0;
        OpView{*op, k_}.operand_const_int(0, &length);
        int64_t bytes = (length * dtype_size(k_.type_of(op->result).dtype) + 31) / 32 * 32;
        intervals_[op->result] = Interval{op->result, op.get(), pos, pos, bytes};
        def_depth_[op->result] = loops.size();
      }
      for (uint32_t v : op->operands) use(v, pos, loops);
      if (op->code == OpCode::For) {
        auto inner = loops;
        inner.emplace_back(pos, op.get());
        walk(op->regions[0], inner);
        loop_end_[op.get()] = counter_;
      } else {
        for (auto& sub : op->regions) walk(sub, loops);
      }
    }
    // Loops end after their bodies: stretch ranges used in loops their definition is outside of.
    for (auto& [v, iv] : intervals_)
      for (auto& [loop, end] : pending_extend_[v])
        if (loop_end_.count(loop)) iv.end = std::max(iv.end, loop_end_[loop]);
  }

  void use(uint32_t v, size_t pos, const std::vector<std::pair<size_t, Op*>>& loops) {
    // A slice or view of an auto tensor uses it too.
    uint32_t root = root_of(v);
    auto it = intervals_.find(root);
    if (it == intervals_.end()) return;
    it->second.end = std::max(it->second.end, pos);
    for (size_t depth = def_depth_[root]; depth < loops.size(); ++depth) pending_extend_[root][loops[depth].second] = 0;
  }

  uint32_t root_of(uint32_t v) const {
    const Op* def = k_.value_def[v];
    while (def && (def->code == OpCode::LocalSlice || def->code == OpCode::LocalReinterpret ||
                   def->code == OpCode::LocalSetSize))
      def = k_.value_def[def->operands[0]];
    return def && def->code == OpCode::LocalAuto ? def->result : v;
  }

  Kernel& k_;
  size_t counter_ = 0;
  std::map<uint32_t, Interval> intervals_;
  std::map<uint32_t, size_t> def_depth_;
  std::map<uint32_t, std::map<Op*, size_t>> pending_extend_;
  std::map<Op*, size_t> loop_end_;
};

}  // namespace

int64_t allocate_local(Kernel& kernel) {
  std::vector<Interval> ranges = Liveness(kernel).run();
  std::vector<const Interval*> placed;
  int64_t high = 0;
  for (Interval& iv : ranges) {
    // First fit: the lowest address not overlapping a live placed range.
    int64_t addr = 0;
    bool moved = true;
    while (moved) {
      moved = false;
      for (const Interval* other : placed) {
        bool live_together = other->start <= iv.end && iv.start <= other->end;
        bool overlap = other->addr < addr + iv.bytes && addr < other->addr + other->bytes;
        if (live_together && overlap) {
          addr = other->addr + other->bytes;
          moved = true;
        }
      }
    }
    iv.addr = addr;
    high = std::max(high, addr + iv.bytes);
    placed.push_back(&iv);
  }
  // Replace each auto op in place by a const address + local_tensor.create.
  Rewriter rw(kernel);
  std::map<Op*, const Interval*> by_op;
  for (const Interval& iv : ranges) by_op[iv.op] = &iv;
  std::function<void(Region&)> rewrite = [&](Region& r) {
    OpList out;
    for (auto& op : r.ops) {
      for (auto& sub : op->regions) rewrite(sub);
      auto it = by_op.find(op.get());
      if (it == by_op.end()) {
        out.push_back(std::move(op));
        continue;
      }
      uint32_t addr = rw.const_int(out, DType::Int32, it->second->addr, op->loc);
      rw.emit(out, OpCode::LocalCreate, {addr, op->operands[0]},
              {op->attrs[0], int_attr(static_cast<int64_t>(Position::VecCalc)), op->attrs[1]}, op->loc, op->result);
    }
    r.ops = std::move(out);
  };
  rewrite(kernel.body);
  return high;
}

}  // namespace asc
