// How a queue of `num` buffers of `len` bytes lowers (b = buffer slot):
//   init_buffer  base = pipe's next free byte; check the region fits; counters = 0
//   alloc_tensor b = allocs % num; if slot b was freed: wait_flag(FREE, free_id + b);
//                tensor at base + b * len
//   enque        set_flag(ENQ, enq_id + enques % num)        (producer -> consumer)
//   deque        wait_flag(ENQ, enq_id + deques % num); tensor at base + slot * len
//   free_tensor  set_flag(FREE, free_id + frees % num)       (consumer -> producer)
//   kernel end   wait for every slot still marked freed, so flags balance
// Queues are FIFO: tensors are enqueued, dequeued and freed in allocation order.
#include "passes/lower_framework.h"

#include <map>

#include "passes/rewriter.h"

namespace asc {
namespace {

// The pipe that writes / reads a local position in a queue hand-over.
Pipe producer_pipe(Position p) {
  switch (p) {
    case Position::VecIn:
    case Position::A1:
    case Position::B1: return Pipe::MTE2;
    case Position::A2:
    case Position::B2: return Pipe::MTE1;
    case Position::CO1: return Pipe::M;
    case Position::CO2: return Pipe::FIX;
    default: return Pipe::V;
  }
}

Pipe consumer_pipe(Position p) {
  switch (p) {
    case Position::VecOut: return Pipe::MTE3;
    case Position::A1:
    case Position::B1: return Pipe::MTE1;
    case Position::A2:
    case Position::B2: return Pipe::M;
    case Position::CO1: return Pipe::FIX;
    case Position::CO2: return Pipe::MTE3;
    default: return Pipe::V;
  }
}

struct QueueState {
  std::string name;
  Position src, dst;
  int64_t num = 0;
  uint32_t base = kNoValue, len = kNoValue;  // int32 values: first byte, bytes per buffer
  uint32_t allocs = kNoValue, enques = kNoValue, deques = kNoValue, frees = kNoValue, pending = kNoValue;
  int enq_event = -1, free_event = -1;
  int64_t enq_id = 0, free_id = 0;
  Location loc;
};

struct BufState {
  uint32_t base = kNoValue, len = kNoValue;
};

class Lowering {
 public:
  Lowering(Kernel& k, int64_t ub_start) : k_(k), rw_(k), ub_start_(ub_start) {}

  void run() {
    // Constant ids the kernel's own set_flag/wait_flag use are not handed out.
    auto user_ids = constant_event_ids(k_);
    for (int e = 0; e < kHardEventCount; ++e) reserved_[e] = user_ids[e];
    region(k_.body, true, false);
    OpList tail;
    for (uint32_t q : queue_order_) drain_pending(tail, queues_.at(q));
    for (auto& op : tail) k_.body.ops.push_back(std::move(op));
    for (int e = 0; e < kHardEventCount; ++e) k_.reserved_event_ids[e] = static_cast<uint8_t>(reserved_[e]);
  }

 private:
  // A TPipe may be created inside an `if` (a cube-only kernel's `if asc.ascend_is_aic():`), not in a loop;
  // buffers are carved at the top level only, where the queues' final hand-overs are drained.
  void region(Region& r, bool top, bool in_loop) {
    OpList out;
    for (auto& op : r.ops) {
      for (auto& sub : op->regions) region(sub, false, in_loop || op->code == OpCode::For);
      if (!op->info().framework || op->code == OpCode::LocalAuto) {
        out.push_back(std::move(op));
        continue;
      }
      bool pipe_in_if = op->code == OpCode::PipeCreate && !in_loop;
      if (!top && !pipe_in_if &&
          (op->code == OpCode::InitQueue || op->code == OpCode::InitTBuf || op->code == OpCode::PipeCreate))
        fail(ASC_ERR_UNSUPPORTED, op->loc, "{} must be at the kernel's top level, not inside a loop or if",
             op->info().name);
      lower(*op, out);
    }
    r.ops = std::move(out);
  }

  uint32_t i32(OpList& out, int64_t v, const Location& loc) { return rw_.const_int(out, DType::Int32, v, loc); }
  uint32_t var(OpList& out, uint32_t init, const Location& loc) { return rw_.value(out, OpCode::Var, {init}, {}, loc); }
  void assign(OpList& out, uint32_t var, uint32_t v, const Location& loc) {
    rw_.emit(out, OpCode::Assign, {var, v}, {}, loc);
  }
  void increment(OpList& out, uint32_t counter, const Location& loc) {
    assign(out, counter, rw_.binary_const(out, OpCode::AddS, counter, 1, loc), loc);
  }
  void flag(OpList& out, OpCode code, int event, uint32_t id, const Location& loc) {
    rw_.emit(out, code, {id}, {int_attr(event)}, loc);
  }

  // Reserves `n` consecutive ids of `event` for the framework.
  int64_t reserve(int event, int64_t n, const Location& loc, const std::string& who) {
    for (int64_t first = 0; first + n <= kMaxEventIds; ++first) {
      uint32_t mask = ((1u << n) - 1) << first;
      if ((reserved_[event] & mask) == 0) {
        reserved_[event] |= mask;
        return first;
      }
    }
    fail(ASC_ERR_VERIFY, loc,
         "event ids exhausted: {} needs {} id(s) of HardEvent.{}, but only {} exist per event and these are taken "
         "(mask {:#04x}); use fewer queues or buffers per pipe pair",
         who, n, hard_event(event).name, kMaxEventIds, reserved_[event]);
  }

  // base = the pipe's next free byte in the position's memory (each memory
  // is carved from its start, the Unified Buffer from ub_start); reserve
  // `bytes` rounded up to the memory's alignment (32; 512 in L0A/L0B).
  void carve(OpList& out, uint32_t pipe, uint32_t bytes, int64_t count, Position pos, const std::string& name,
             const Location& loc, uint32_t* base, uint32_t* len) {
    Memory memory = position_memory(pos);
    auto key = std::make_pair(pipe, memory);
    if (!pipe_next_.count(key)) pipe_next_[key] = var(out, i32(out, memory == Memory::UB ? ub_start_ : 0, loc), loc);
    uint32_t next = pipe_next_.at(key);
    int64_t align = memory_alignment(memory);
    uint32_t b32 = rw_.cast(out, bytes, DType::Int32, loc);
    uint32_t rounded = rw_.binary_const(
        out, OpCode::MulS,
        rw_.binary_const(out, OpCode::FloorDivS, rw_.binary_const(out, OpCode::AddS, b32, align - 1, loc), align, loc),
        align, loc);
    *len = var(out, rounded, loc);
    *base = var(out, next, loc);
    uint32_t total = rw_.binary_const(out, OpCode::MulS, rounded, count, loc);
    // A uint8 view of the whole region: checks at run time that it fits.
    rw_.emit(out, OpCode::LocalCreate, {*base, total},
             {int_attr(static_cast<int64_t>(DType::UInt8)), int_attr(static_cast<int64_t>(pos)), string_attr(name)},
             loc);
    assign(out, next, rw_.binary(out, OpCode::AddS, next, total, loc), loc);
  }

  uint32_t tensor_at(OpList& out, uint32_t base, uint32_t len, uint32_t slot, DType d, Position pos,
                     const Location& loc, uint32_t result, uint32_t elements = kNoValue) {
    uint32_t addr = rw_.binary(out, OpCode::AddS, base, rw_.binary(out, OpCode::MulS, slot, len, loc), loc);
    if (elements == kNoValue) elements = rw_.binary_const(out, OpCode::FloorDivS, len, dtype_size(d), loc);
    return rw_
        .emit(out, OpCode::LocalCreate, {addr, elements},
              {int_attr(static_cast<int64_t>(d)), int_attr(static_cast<int64_t>(pos)), string_attr("")}, loc, result)
        .result;
  }

  uint32_t slot_of(OpList& out, uint32_t counter, const QueueState& q, const Location& loc) {
    return rw_.binary_const(out, OpCode::ModS, counter, q.num, loc);
  }

  // One queue operation's flag on slot `counter % num`, then counter += 1.
  uint32_t step(OpList& out, const QueueState& q, uint32_t counter, OpCode flag_op, int event, int64_t first_id,
                const Location& loc) {
    uint32_t slot = slot_of(out, counter, q, loc);
    flag(out, flag_op, event, rw_.binary_const(out, OpCode::AddS, slot, first_id, loc), loc);
    increment(out, counter, loc);
    return slot;
  }

  QueueState& queue(uint32_t v, const Op& op) {
    auto it = queues_.find(v);
    if (it == queues_.end())
      fail(ASC_ERR_VERIFY, op.loc, "{}: the queue has no buffers; call pipe.init_buffer first", op.info().name);
    return it->second;
  }

  void lower(Op& op, OpList& out) {
    const Location& loc = op.loc;
    switch (op.code) {
      case OpCode::PipeCreate: pipe_next_[{op.result, Memory::UB}] = var(out, i32(out, ub_start_, loc), loc); return;
      case OpCode::QueCreate:
      case OpCode::TBufCreate: return;  // state is created by init_buffer
      case OpCode::InitQueue: return init_queue(op, out);
      case OpCode::InitTBuf: {
        const Op* def = k_.value_def[op.operands[1]];
        BufState& b = bufs_[op.operands[1]];
        carve(out, op.operands[0], op.operands[2], 1, static_cast<Position>(def->attr_int(0)), def->attr(1).s, loc,
              &b.base, &b.len);
        return;
      }
      case OpCode::AllocTensor: {
        QueueState& q = queue(op.operands[0], op);
        uint32_t slot = slot_of(out, q.allocs, q, loc);
        uint32_t bit = rw_.binary(out, OpCode::ShlS, i32(out, 1, loc), slot, loc);
        uint32_t freed =
            rw_.binary(out, OpCode::CmpNe, rw_.binary(out, OpCode::AndS, q.pending, bit, loc), i32(out, 0, loc), loc);
        Op& branch = rw_.emit(out, OpCode::If, {freed}, {}, loc);
        OpList& then = branch.regions[0].ops;
        flag(then, OpCode::WaitFlag, q.free_event, rw_.binary_const(then, OpCode::AddS, slot, q.free_id, loc), loc);
        assign(then, q.pending, rw_.binary(then, OpCode::XorS, q.pending, bit, loc), loc);
        increment(out, q.allocs, loc);
        tensor_at(out, q.base, q.len, slot, static_cast<DType>(op.attr_int(0)), q.src, loc, op.result);
        return;
      }
      case OpCode::Enque: {
        QueueState& q = queue(op.operands[0], op);
        step(out, q, q.enques, OpCode::SetFlag, q.enq_event, q.enq_id, loc);
        return;
      }
      case OpCode::Deque: {
        QueueState& q = queue(op.operands[0], op);
        uint32_t slot = step(out, q, q.deques, OpCode::WaitFlag, q.enq_event, q.enq_id, loc);
        tensor_at(out, q.base, q.len, slot, static_cast<DType>(op.attr_int(0)), q.dst, loc, op.result);
        return;
      }
      case OpCode::FreeTensor: {
        QueueState& q = queue(op.operands[0], op);
        uint32_t slot = step(out, q, q.frees, OpCode::SetFlag, q.free_event, q.free_id, loc);
        uint32_t bit = rw_.binary(out, OpCode::ShlS, i32(out, 1, loc), slot, loc);
        assign(out, q.pending, rw_.binary(out, OpCode::OrS, q.pending, bit, loc), loc);
        return;
      }
      case OpCode::TBufGet:
      case OpCode::TBufGetWithOffset: {
        auto it = bufs_.find(op.operands[0]);
        if (it == bufs_.end())
          fail(ASC_ERR_VERIFY, loc, "{}: the TBuf has no memory; call pipe.init_buffer first", op.info().name);
        DType d = static_cast<DType>(op.attr_int(0));
        Position pos = k_.type_of(op.result).position;
        uint32_t zero = i32(out, 0, loc);
        if (op.code == OpCode::TBufGet) {
          uint32_t n = op.operands.size() > 1 ? rw_.cast(out, op.operands[1], DType::Int32, loc) : kNoValue;
          tensor_at(out, it->second.base, it->second.len, zero, d, pos, loc, op.result, n);
        } else {
          uint32_t base =
              rw_.binary(out, OpCode::AddS, it->second.base, rw_.cast(out, op.operands[2], DType::Int32, loc), loc);
          tensor_at(out, base, it->second.len, zero, d, pos, loc, op.result,
                    rw_.cast(out, op.operands[1], DType::Int32, loc));
        }
        return;
      }
      case OpCode::AllocEventId:
      case OpCode::FetchEventId: {
        int event = static_cast<int>(op.attr_int(0));
        int64_t id = reserve(event, 1, loc, std::string(op.info().name));
        if (op.code == OpCode::FetchEventId) reserved_[event] &= ~(1u << id);  // fetch does not keep it
        rw_.emit(out, OpCode::Const, {}, {int_attr(static_cast<int64_t>(DType::Int32)), int_attr(id)}, loc, op.result);
        return;
      }
      case OpCode::ReleaseEventId: {
        int64_t id;
        if (!OpView{op, k_}.operand_const_int(1, &id) || id < 0 || id >= kMaxEventIds)
          fail(ASC_ERR_VERIFY, loc, "release_event_id needs an id returned by alloc_event_id");
        reserved_[op.attr_int(0)] &= ~(1u << id);
        return;
      }
      default: fail(ASC_ERR_INTERNAL, loc, "no lowering for {}", op.info().name);
    }
  }

  void init_queue(Op& op, OpList& out) {
    const Location& loc = op.loc;
    const Op* def = k_.value_def[op.operands[1]];
    if (queues_.count(op.operands[1])) fail(ASC_ERR_VERIFY, loc, "init_buffer called twice for one queue");
    QueueState q;
    q.name = def->attr(3).s.empty() ? "queue" : def->attr(3).s;
    q.src = static_cast<Position>(def->attr_int(0));
    q.dst = static_cast<Position>(def->attr_int(1));
    OpView{op, k_}.operand_const_int(2, &q.num);
    q.loc = loc;
    Pipe producer = producer_pipe(q.src), consumer = consumer_pipe(q.dst);
    q.enq_event = find_hard_event(producer, consumer);
    q.free_event = find_hard_event(consumer, producer);
    if (q.enq_event < 0 || q.free_event < 0)
      fail(ASC_ERR_UNSUPPORTED, loc,
           "a queue from TPosition.{} to TPosition.{} hands data from pipe {} to pipe {}, "
           "which has no HardEvent",
           position_name(q.src), position_name(q.dst), pipe_name(producer), pipe_name(consumer));
    q.enq_id = reserve(q.enq_event, q.num, loc, "queue '" + q.name + "'");
    q.free_id = reserve(q.free_event, q.num, loc, "queue '" + q.name + "'");
    carve(out, op.operands[0], op.operands[3], q.num, q.src, q.name, loc, &q.base, &q.len);
    uint32_t zero = i32(out, 0, loc);
    for (uint32_t* c : {&q.allocs, &q.enques, &q.deques, &q.frees, &q.pending}) *c = var(out, zero, loc);
    queue_order_.push_back(op.operands[1]);
    queues_.emplace(op.operands[1], q);
  }

  void drain_pending(OpList& out, const QueueState& q) {
    for (int64_t slot = 0; slot < q.num; ++slot) {
      uint32_t bit = i32(out, int64_t{1} << slot, q.loc);
      uint32_t freed = rw_.binary(out, OpCode::CmpNe, rw_.binary(out, OpCode::AndS, q.pending, bit, q.loc),
                                  i32(out, 0, q.loc), q.loc);
      Op& branch = rw_.emit(out, OpCode::If, {freed}, {}, q.loc);
      flag(branch.regions[0].ops, OpCode::WaitFlag, q.free_event, i32(branch.regions[0].ops, q.free_id + slot, q.loc),
           q.loc);
    }
  }

  Kernel& k_;
  Rewriter rw_;
  int64_t ub_start_;
  std::map<std::pair<uint32_t, Memory>, uint32_t> pipe_next_;  // (pipe value, memory) -> var of its next free byte
  std::map<uint32_t, QueueState> queues_;
  std::vector<uint32_t> queue_order_;
  std::map<uint32_t, BufState> bufs_;
  std::array<uint32_t, kHardEventCount> reserved_{};
};

}  // namespace

void lower_framework(Kernel& kernel, int64_t ub_start) { Lowering(kernel, ub_start).run(); }

}  // namespace asc
