// Live ranges are intervals over the ops in program order. A tensor used in a
// loop that does not contain its definition lives until that loop ends (the
// loop reads it again on the next iteration). Placement is first fit over
// the ranges in order of start, 32-byte aligned. A tensor whose length is
// known only when the kernel runs (a run-time shape) is placed then: above
// every constant-length one, after the run-time ones before it, for the whole
// kernel; such tensors are created at the kernel's top level. Each memory (the
// Unified Buffer; a cube core's L1, L0A, L0B, L0C) is placed on its own, at its
// address alignment (512 bytes in L0A/L0B, 64 in L0C, 32 elsewhere).
#include "passes/allocate_local.h"

#include <algorithm>
#include <functional>
#include <map>
#include <set>

#include "passes/rewriter.h"

namespace asc {
namespace {

struct Interval {
  uint32_t value;
  Op* op;
  size_t start, end;
  int64_t bytes;
  Memory memory;
  int64_t addr = -1;
};

// local_tensor.auto's position attribute, wherever the op table puts it.
Position auto_position(const Op& op) {
  static const int at = attr_index(op_info(OpCode::LocalAuto), "position");
  return static_cast<Position>(op.attrs[static_cast<size_t>(at)].i);
}

class Liveness {
 public:
  explicit Liveness(Kernel& k) : k_(k) {}

  std::vector<Interval> run() {
    walk(k_.body, {}, true);
    std::vector<Interval> out;
    for (auto& [v, iv] : intervals_) out.push_back(iv);
    std::sort(out.begin(), out.end(), [](const Interval& a, const Interval& b) { return a.start < b.start; });
    return out;
  }

 private:
  // `loops`: the enclosing for ops' (start, end) positions, outermost first.
  void walk(Region& r, std::vector<std::pair<size_t, Op*>> loops, bool top) {
    for (auto& op : r.ops) {
      size_t pos = counter_++;
      int64_t unused = 0;
      if (op->code == OpCode::LocalAuto && !OpView{*op, k_}.operand_const_int(0, &unused)) {
        if (!top)
          fail(ASC_ERR_UNSUPPORTED, op->loc,
               "a LocalTensorAuto of run-time length must be created at the kernel's top level, not in a loop or if");
        if (position_memory(auto_position(*op)) != Memory::UB)
          fail(ASC_ERR_UNSUPPORTED, op->loc,
               "a LocalTensorAuto in {} must have a length known while compiling (run-time lengths are for the "
               "Unified Buffer)",
               memory_name(position_memory(auto_position(*op))));
        dynamic.push_back(op.get());
      } else if (op->code == OpCode::LocalAuto) {
        int64_t length = 0;
        OpView{*op, k_}.operand_const_int(0, &length);
        Memory memory = position_memory(auto_position(*op));
        int64_t align = memory_alignment(memory);
        int64_t bytes = (length * dtype_size(k_.type_of(op->result).dtype) + align - 1) / align * align;
        intervals_[op->result] = Interval{op->result, op.get(), pos, pos, bytes, memory};
        if (memory != Memory::UB) cube_memory = op.get();
        def_depth_[op->result] = loops.size();
      }
      for (uint32_t v : op->operands) use(v, pos, loops);
      if (op->code == OpCode::For) {
        auto inner = loops;
        inner.emplace_back(pos, op.get());
        walk(op->regions[0], inner, false);
        loop_end_[op.get()] = counter_;
      } else {
        for (auto& sub : op->regions) walk(sub, loops, false);
      }
      if (op->code == OpCode::PipeCreate || op->code == OpCode::StackBuffer) framework_use = op.get();
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

 public:
  std::vector<Op*> dynamic;     // the run-time-length tensors, in program order
  Op* framework_use = nullptr;  // a TPipe or the framework's temporary buffer: they start at the static end
  Op* cube_memory = nullptr;    // a tensor placed outside the Unified Buffer

 private:
  Kernel& k_;
  size_t counter_ = 0;
  std::map<uint32_t, Interval> intervals_;
  std::map<uint32_t, size_t> def_depth_;
  std::map<uint32_t, std::map<Op*, size_t>> pending_extend_;
  std::map<Op*, size_t> loop_end_;
};

}  // namespace

int64_t allocate_local(Kernel& kernel) {
  Liveness liveness(kernel);
  std::vector<Interval> ranges = liveness.run();
  if (!liveness.dynamic.empty() && liveness.framework_use)
    fail(ASC_ERR_UNSUPPORTED, liveness.dynamic.front()->loc,
         "a LocalTensorAuto of run-time length cannot share a kernel with a TPipe or the framework's temporary buffer "
         "(an adv call without temp_buffer): give it a compile-time length");
  if (liveness.cube_memory && liveness.framework_use)
    fail(ASC_ERR_UNSUPPORTED, liveness.cube_memory->loc,
         "a LocalTensorAuto outside the Unified Buffer cannot share a kernel with a TPipe (whose L1 / L0 buffers start "
         "at address 0)");
  std::vector<const Interval*> placed;
  int64_t high = 0;
  for (Interval& iv : ranges) {
    // First fit: the lowest address not overlapping a live placed range of the same memory.
    int64_t addr = 0;
    bool moved = true;
    while (moved) {
      moved = false;
      for (const Interval* other : placed) {
        if (other->memory != iv.memory) continue;
        bool live_together = other->start <= iv.end && iv.start <= other->end;
        bool overlap = other->addr < addr + iv.bytes && addr < other->addr + other->bytes;
        if (live_together && overlap) {
          addr = other->addr + other->bytes;
          moved = true;
        }
      }
    }
    iv.addr = addr;
    if (iv.memory == Memory::UB) high = std::max(high, addr + iv.bytes);
    placed.push_back(&iv);
  }
  // Replace each auto op in place by a const address + local_tensor.create.
  Rewriter rw(kernel);
  std::map<Op*, const Interval*> by_op;
  for (const Interval& iv : ranges) by_op[iv.op] = &iv;
  std::set<Op*> dynamic(liveness.dynamic.begin(), liveness.dynamic.end());
  uint32_t next = kNoValue;  // the next run-time tensor's address (int32), after the previous one
  std::function<void(Region&)> rewrite = [&](Region& r) {
    OpList out;
    for (auto& op : r.ops) {
      for (auto& sub : op->regions) rewrite(sub);
      if (dynamic.count(op.get())) {
        const Location loc = op->loc;
        if (next == kNoValue) next = rw.const_int(out, DType::Int32, high, loc);
        uint32_t addr = next;
        uint32_t length = rw.cast(out, op->operands[0], DType::Int32, loc);
        int64_t size = dtype_size(kernel.type_of(op->result).dtype);
        uint32_t bytes = rw.binary_const(out, OpCode::MulS, length, size, loc);
        uint32_t rounded = rw.binary_const(out, OpCode::AddS, bytes, 31, loc);
        rounded = rw.binary_const(out, OpCode::FloorDivS, rounded, 32, loc);
        rounded = rw.binary_const(out, OpCode::MulS, rounded, 32, loc);
        next = rw.binary(out, OpCode::AddS, addr, rounded, loc);
        rw.emit(out, OpCode::LocalCreate, {addr, length},
                {op->attrs[0], int_attr(static_cast<int64_t>(Position::VecCalc)), op->attrs[1]}, loc, op->result);
        continue;
      }
      auto it = by_op.find(op.get());
      if (it == by_op.end()) {
        out.push_back(std::move(op));
        continue;
      }
      uint32_t addr = rw.const_int(out, DType::Int32, it->second->addr, op->loc);
      rw.emit(out, OpCode::LocalCreate, {addr, op->operands[0]},
              {op->attrs[0], int_attr(static_cast<int64_t>(auto_position(*op))), op->attrs[1]}, op->loc, op->result);
    }
    r.ops = std::move(out);
  };
  rewrite(kernel.body);
  return high;
}

}  // namespace asc
