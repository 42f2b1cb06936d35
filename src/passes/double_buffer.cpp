// A loop built in pairs computes its trip count as the front end used to:
// trips = max(-((lb - ub) // step), 0), ceil((ub - lb) / step) for either sign
// of step; pairs = trips // 2; the odd last iteration runs when trips % 2 == 1.
// The copies are clones of the body with every value it defines renumbered;
// values from outside the loop are shared. Marked tensors in nested regions
// (an if, an inner loop) are cloned as they are: copy 0's would not be
// visible from copy 1's.
#include "passes/double_buffer.h"

#include <map>
#include <utility>

#include "passes/rewriter.h"

namespace asc {
namespace {

// local_tensor.auto's double_buffer attribute and const's value, wherever the op table puts them.
size_t attr_of(OpCode code, const char* name) {
  int i = attr_index(op_info(code), name);
  if (i < 0) fail(ASC_ERR_INTERNAL, "the op table has no attribute {} of {}", name, op_info(code).name);
  return static_cast<size_t>(i);
}

bool marked(const Op& op) {
  static const size_t mark = attr_of(OpCode::LocalAuto, "double_buffer");
  return op.code == OpCode::LocalAuto && op.attrs[mark].i != 0;
}

bool holds_marked(const Region& r) {
  for (const auto& op : r.ops) {
    if (marked(*op)) return true;
    for (const auto& sub : op->regions)
      if (holds_marked(sub)) return true;
  }
  return false;
}

void count_uses(const Region& r, std::map<uint32_t, int>& uses) {
  for (const auto& op : r.ops) {
    for (uint32_t v : op->operands) ++uses[v];
    for (const auto& sub : op->regions) count_uses(sub, uses);
  }
}

class Pairer {
 public:
  explicit Pairer(Kernel& k) : k_(k), rw_(k) {}

  void region(Region& r) {
    OpList out;
    for (auto& op : r.ops) {
      for (auto& sub : op->regions) region(sub);  // inner loops first: the copies clone them paired
      if (op->code == OpCode::For && holds_marked(op->regions[0])) {
        pair(*op, out);
        rw_.forget(*op);
      } else {
        out.push_back(std::move(op));
      }
    }
    r.ops = std::move(out);
  }

 private:
  static uint32_t mapped(const ValueMap& map, uint32_t v) {
    auto it = map.find(v);
    return it == map.end() ? v : it->second;
  }

  std::unique_ptr<Op> clone(const Op& op, ValueMap& map) {
    auto copy = rw_.clone_shell(op, map);
    for (size_t i = 0; i < op.regions.size(); ++i)
      for (const auto& sub : op.regions[i].ops) copy->regions[i].ops.push_back(clone(*sub, map));
    return copy;
  }

  // The op of `ops` defining `v` when it is a const that only the marked tensor `tensor` uses (its length,
  // as the front end makes it): the pass may change it. nullptr otherwise.
  static Op* own_length(OpList& ops, const Op& tensor, uint32_t v, const std::map<uint32_t, int>& uses) {
    auto n = uses.find(tensor.operands[0]);
    if (n == uses.end() || n->second != 1) return nullptr;
    for (auto it = ops.rbegin(); it != ops.rend(); ++it)
      if ((*it)->result == v) return (*it)->code == OpCode::Const ? it->get() : nullptr;
    return nullptr;
  }

  void pair(const Op& loop, OpList& out) {
    const Location& loc = loop.loc;
    const Region& original = loop.regions[0];
    uint32_t lb = loop.operands[0], ub = loop.operands[1], step = loop.operands[2];
    DType d = k_.type_of(loop.result).dtype;
    std::map<uint32_t, int> uses;  // values defined in the body are used only there
    count_uses(original, uses);

    uint32_t trips = rw_.binary(out, OpCode::SubS, lb, ub, loc);
    trips = rw_.binary(out, OpCode::FloorDivS, trips, step, loc);
    trips = rw_.value(out, OpCode::Neg, {trips}, {}, loc);
    trips = rw_.binary_const(out, OpCode::MaxS, trips, 0, loc);
    uint32_t pairs = rw_.binary_const(out, OpCode::FloorDivS, trips, 2, loc);
    uint32_t zero = rw_.const_int(out, d, 0, loc);
    uint32_t one = rw_.const_int(out, d, 1, loc);
    Op& pair_loop = rw_.emit(out, OpCode::For, {zero, pairs, one}, {}, loc);
    k_.value_def[pair_loop.result] = nullptr;  // a loop variable
    OpList& body = pair_loop.regions[0].ops;

    std::vector<std::pair<uint32_t, const Op*>> firsts;  // copy 0's marked tensors: (its value, the original)
    for (int64_t copy = 0; copy < 2; ++copy) {
      uint32_t at = rw_.binary_const(body, OpCode::MulS, pair_loop.result, 2, loc);
      at = rw_.binary_const(body, OpCode::AddS, at, copy, loc);
      at = rw_.binary(body, OpCode::MulS, at, step, loc);
      ValueMap map{{loop.result, rw_.binary(body, OpCode::AddS, lb, at, loc)}};
      size_t k = 0;
      for (const auto& op : original.ops) {
        if (!marked(*op)) {
          body.push_back(clone(*op, map));
          continue;
        }
        int64_t length = 0;
        OpView{*op, k_}.operand_const_int(0, &length);  // the verifier made sure it is a constant
        uint32_t length_v = mapped(map, op->operands[0]);
        Op* own = own_length(body, *op, length_v, uses);
        if (copy == 0) {  // a tensor of two halves
          if (own) {
            static const size_t value = attr_of(OpCode::Const, "value");
            own->attrs[value] = int_attr(2 * length);
          } else {
            length_v = rw_.const_int(body, k_.type_of(length_v).dtype, 2 * length, op->loc);
          }
          Op& twice = rw_.emit(body, OpCode::LocalAuto, {length_v}, op->attrs, op->loc);
          map[op->result] = twice.result;
          firsts.emplace_back(twice.result, op.get());
        } else if (k < firsts.size() && firsts[k].second == op.get()) {  // the second half of copy 0's
          uint32_t offset = own ? length_v : rw_.const_int(body, DType::Int32, length, op->loc);
          map[op->result] = rw_.value(body, OpCode::LocalSlice, {firsts[k].first, offset}, {}, op->loc);
        } else {
          body.push_back(clone(*op, map));
        }
        ++k;
      }
    }

    uint32_t odd = rw_.binary_const(out, OpCode::ModS, trips, 2, loc);
    odd = rw_.binary_const(out, OpCode::CmpEq, odd, 1, loc);
    Op& last = rw_.emit(out, OpCode::If, {odd}, {}, loc);
    OpList& then = last.regions[0].ops;
    uint32_t at = rw_.binary_const(then, OpCode::SubS, trips, 1, loc);
    at = rw_.binary(then, OpCode::MulS, at, step, loc);
    ValueMap map{{loop.result, rw_.binary(then, OpCode::AddS, lb, at, loc)}};
    for (const auto& op : original.ops) then.push_back(clone(*op, map));
  }

  Kernel& k_;
  Rewriter rw_;
};

}  // namespace

void double_buffer(Kernel& kernel) { Pairer(kernel).region(kernel.body); }

}  // namespace asc
