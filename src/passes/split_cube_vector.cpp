// The two parts are clones of the program with every value they define renumbered (each part its own), kept
// only where they matter to that part; the original ops are dropped. Sides are found to a fixed point, since a
// `var` takes the side of what is assigned to it, which may come later in the program than its first use.
#include "passes/split_cube_vector.h"

#include <map>
#include <set>

#include "passes/rewriter.h"

namespace asc {
namespace {

constexpr uint8_t kNeither = 0, kCube = 1, kVector = 2, kBoth = 3;  // sides: bits of an op's parts
// In what a loop or branch holds: an assignment to a variable, which every part needs (the variable may be read
// by either after the loop).
constexpr uint8_t kVariables = 4;

const char* side_name(uint8_t s) { return s == kCube ? "the cube core's" : "the vector cores'"; }

uint8_t pipe_side(Pipe p) {
  switch (p) {
    case Pipe::V:
    case Pipe::MTE3: return kVector;
    case Pipe::M:
    case Pipe::MTE1:
    case Pipe::FIX: return kCube;
    default: return kNeither;
  }
}

uint8_t position_side(Position p) { return position_is_vector(p) || p == Position::CO2 ? kVector : kCube; }

uint8_t type_side(const Type& t) {
  return t.kind == TypeKind::LocalTensor && t.position != Position::GM ? position_side(t.position) : kNeither;
}

class Splitter {
 public:
  explicit Splitter(Kernel& k) : k_(k), rw_(k) {}

  void run() {
    find_l1_views(k_.body);
    for (int round = 0; round < 8; ++round) {  // vars settle in a few rounds
      changed_ = false;
      classify(k_.body);
      if (!changed_) break;
    }
    OpList top;
    for (const auto& op : k_.body.ops) hoist_shared(*op, top);
    uint32_t is_aic = rw_.value(top, OpCode::AscendIsAic, {}, {}, loc());
    Op& branch = rw_.emit(top, OpCode::If, {is_aic}, {}, loc());
    ValueMap cube = shared_, vector = shared_;
    for (const auto& op : k_.body.ops) clone_into(*op, kCube, cube, branch.regions[0].ops);
    for (const auto& op : k_.body.ops) clone_into(*op, kVector, vector, branch.regions[1].ops);
    add_credits(branch.regions[0].ops, branch.regions[1].ops);
    for (const auto& op : k_.body.ops) rw_.forget(*op);
    k_.body.ops = std::move(top);
  }

 private:
  Location loc() const { return k_.body.ops.empty() ? Location{} : k_.body.ops.front()->loc; }

  static bool writes_cube_l1(const Op& op) {
    return op.code == OpCode::CopyUbToL1 || op.code == OpCode::CopyUbToL1Blocks;
  }

  // The L1 tensors UB -> L1 copies write, and the slices of them they write through: allocated before the split,
  // the same in both parts (hoist_shared); the vector part makes the slices.
  void find_l1_views(const Region& r) {
    for (const auto& op : r.ops) {
      for (const auto& sub : op->regions) find_l1_views(sub);
      if (!writes_cube_l1(*op)) continue;
      uint32_t v = op->operands[0];
      for (const Op* def = k_.value_def[v]; def && def->code == OpCode::LocalSlice; def = k_.value_def[v]) {
        l1_views_.insert(v);
        v = def->operands[0];
      }
      l1_roots_.insert(v);
    }
  }

  uint8_t intrinsic(const Op& op) const {
    if (op.result != kNoValue && l1_roots_.count(op.result)) return kNeither;
    if (op.result != kNoValue && l1_views_.count(op.result)) return kVector;
    switch (op.code) {
      case OpCode::FixpipeToUb: return kCube;  // its Unified Buffer tensor is shared (hoist_shared)
      case OpCode::CopyUbToL1:
      case OpCode::CopyUbToL1Blocks: return kVector;  // its L1 tensor is shared (hoist_shared)
      case OpCode::SetFlag:
      case OpCode::WaitFlag: {
        const HardEventInfo& e = hard_event(op.attr_int(0));
        return pipe_side(e.src) | pipe_side(e.dst);
      }
      case OpCode::CrossCoreSetFlag:
      case OpCode::CrossCoreWaitFlag: return pipe_side(static_cast<Pipe>(op.attr_int(1)));
      case OpCode::Printf:
      case OpCode::DumpTensor: return kVector;  // printed once, by the vector cores
      default: break;
    }
    uint8_t s = op.result != kNoValue ? type_side(k_.type_of(op.result)) : kNeither;
    if (op.code == OpCode::For || op.code == OpCode::If || op.code == OpCode::Var || op.code == OpCode::Assign)
      return s;
    if (!op_runs_on_scalar_unit(op)) s |= pipe_side(op_pipe(op));
    for (uint32_t v : op.operands) s |= type_side(k_.type_of(v));
    if (s == kNeither)
      for (const auto& e : op.info().effects)
        if (e.write) s = kVector;  // a scalar store: made once, by the vector cores
    return s;
  }

  uint8_t side_of_value(uint32_t v) const {
    auto it = sides_.find(v);
    return it == sides_.end() ? kNeither : it->second;
  }

  void mark(uint32_t v, uint8_t s) {
    uint8_t& cur = sides_[v];
    if ((cur | s) != cur) {
      cur |= s;
      changed_ = true;
    }
  }

  // The side of each op and the values it defines; a var takes the sides of what is assigned to it.
  uint8_t classify(const Region& r) {
    uint8_t held = kNeither;
    for (const auto& op : r.ops) {
      uint8_t s = intrinsic(*op);
      if (op->result != kNoValue) s |= side_of_value(op->result);  // a var: what is assigned to it
      for (size_t i = 0; i < op->operands.size(); ++i)
        if (!(op->code == OpCode::FixpipeToUb && i == 0)) s |= side_of_value(op->operands[i]);
      if (op->code == OpCode::Assign) {
        mark(op->operands[0], side_of_value(op->operands[1]));
        s = side_of_value(op->operands[0]);
      }
      if (s == kBoth)
        fail(ASC_ERR_TYPE, op->loc,
             "{}: this operation uses values of both the cube core's part and the vector cores' part of the kernel "
             "(a tile kernel that uses both runs as a mix kernel: hand a matmul's result to the vector cores with "
             "a copy into the Unified Buffer, and keep each part's values to itself)",
             op->info().name);
      if (op->result != kNoValue) mark(op->result, s);
      uint8_t inner = kNeither;
      for (const auto& sub : op->regions) inner |= classify(sub);
      if (s != kNeither && (inner & ~s))
        fail(ASC_ERR_TYPE, op->loc,
             "{}: its condition or bounds come from {} part of the kernel, but it holds operations of the other "
             "part",
             op->info().name, side_name(s));
      if (op->code == OpCode::Assign && s == kNeither) inner |= kVariables;
      held |= s | inner;
      sides_of_[op.get()] = {s, static_cast<uint8_t>(s | inner)};
    }
    return held;
  }

  // A Unified Buffer tensor fixpipe.ub writes, an L1 tensor UB -> L1 copies write (through slices): allocated
  // before the split, the same one in both parts.
  void hoist_shared(const Op& op, OpList& top) {
    for (const auto& sub : op.regions)
      for (const auto& inner : sub.ops) hoist_shared(*inner, top);
    if (op.code != OpCode::FixpipeToUb && !writes_cube_l1(op)) return;
    uint32_t dst = op.operands[0];
    while (l1_views_.count(dst)) dst = k_.value_def[dst]->operands[0];
    if (shared_.count(dst)) return;
    const Op* def = k_.value_def[dst];
    if (!def || def->code != OpCode::LocalAuto)
      fail(ASC_ERR_TYPE, op.loc, "{}: in a split tile kernel the tensor it writes must be a tile's", op.info().name);
    int64_t length = 0;
    if (!OpView{*def, k_}.operand_const_int(0, &length))
      fail(ASC_ERR_TYPE, def->loc, "local_tensor.auto: the length of a hand-over tensor must be known while compiling");
    uint32_t n = rw_.const_int(top, k_.type_of(def->operands[0]).dtype, length, def->loc);
    shared_[dst] = rw_.value(top, OpCode::LocalAuto, {n}, def->attrs, def->loc);
  }

  void clone_into(const Op& op, uint8_t side, ValueMap& map, OpList& out) {
    auto [s, held] = sides_of_.at(&op);
    // an op of the other part, or a loop or branch holding nothing of this part (and no variable's update)
    if (s != kNeither ? s != side : held != kNeither && !(held & (side | kVariables))) return;
    if (op.code == OpCode::LocalAuto && shared_.count(op.result)) return;  // allocated before the split
    auto copy = rw_.clone_shell(op, map);
    for (size_t i = 0; i < op.regions.size(); ++i)
      for (const auto& sub : op.regions[i].ops) clone_into(*sub, side, map, copy->regions[i].ops);
    if (op.code == OpCode::CrossCoreSetFlag) note_flag(op, sets_[side == kCube]);
    if (op.code == OpCode::CrossCoreWaitFlag) note_flag(op, waits_[side == kCube]);
    out.push_back(std::move(copy));
  }

  void note_flag(const Op& op, std::map<int64_t, const Op*>& flags) {
    int64_t id = 0;
    if (op.attr_int(0) == 2 && OpView{op, k_}.operand_const_int(0, &id)) flags.emplace(id, &op);
  }

  // Each flag that hands a buffer back (split_credits): the part that sets it gives one credit first, the part
  // that waits for it takes the last one at its end, so every set meets a wait.
  void add_credits(OpList& cube, OpList& vector) {
    OpList* parts[2] = {&vector, &cube};  // indexed as sets_ and waits_: 1 the cube part
    OpList first[2];
    for (int setter = 0; setter < 2; ++setter)
      for (const auto& [id, set] : sets_[setter]) {
        auto wait = waits_[1 - setter].find(id);
        if (!(k_.options.split_credits >> id & 1) || wait == waits_[1 - setter].end()) continue;
        uint32_t v = rw_.const_int(first[setter], k_.type_of(set->operands[0]).dtype, id, set->loc);
        rw_.emit(first[setter], OpCode::CrossCoreSetFlag, {v}, set->attrs, set->loc);
        OpList& waiter = *parts[1 - setter];
        uint32_t c = rw_.const_int(waiter, k_.type_of(wait->second->operands[0]).dtype, id, wait->second->loc);
        rw_.emit(waiter, OpCode::CrossCoreWaitFlag, {c}, wait->second->attrs, wait->second->loc);
      }
    for (int part = 0; part < 2; ++part) {
      for (auto& op : *parts[part]) first[part].push_back(std::move(op));
      *parts[part] = std::move(first[part]);
    }
  }

  Kernel& k_;
  Rewriter rw_;
  bool changed_ = false;
  std::map<uint32_t, uint8_t> sides_;
  struct OpSides {
    uint8_t own;   // the op's part (kNeither: both)
    uint8_t held;  // its own and its regions' ops' parts, with kVariables
  };
  std::map<const Op*, OpSides> sides_of_;
  ValueMap shared_;
  std::set<uint32_t> l1_roots_, l1_views_;           // find_l1_views
  std::map<int64_t, const Op*> sets_[2], waits_[2];  // per part (1: the cube's), the mode-2 flags it sets / waits
};

}  // namespace

void split_cube_vector(Kernel& kernel) {
  if (kernel.options.split_cube_vector) Splitter(kernel).run();
}

}  // namespace asc
