// How a queue of `num` buffers of `len` bytes lowers (b = buffer slot):
//   init_buffer  base = pipe's next free byte; check the region fits; counters = 0
//   alloc_tensor b = allocs % num; if slot b was freed: wait_flag(FREE, free_id + b);
//                tensor at base + b * len
//   enque        set_flag(ENQ, enq_id + enques % num)        (producer -> consumer)
//   deque        wait_flag(ENQ, enq_id + deques % num); tensor at base + slot * len
//   free_tensor  set_flag(FREE, free_id + frees % num)       (consumer -> producer)
//   kernel end   wait for every slot still marked freed, so flags balance
// Queues are FIFO: tensors are enqueued, dequeued and freed in allocation order.
// The queue queries read the same run-time counters (in_que = enques - deques,
// allocs - frees = buffers in use), so they are right in loops too.
// A TBufPool is an allocator like a TPipe: init_buf_pool carves its bytes from
// the owner (or reuses share_buf's), and its queues and bufs are carved from it.
// tbufpool.reset and tpipe.reset wait for every hand-back of their queues and
// put a PIPE_ALL barrier, so the next user of the bytes cannot overtake them.
// Operations on a queue, buf or pool that has no memory compile to a local
// tensor at address -1, a run-time error naming it (pyasc's tests compile such kernels).
#include "passes/lower_framework.h"

#include <algorithm>
#include <array>
#include <map>
#include <optional>
#include <set>

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

// The enque/deque flags of one hand-over event: num ids and their counters.
struct Channel {
  int event = -1;
  int64_t first_id = 0;
  uint32_t enques = kNoValue, deques = kNoValue;
};

struct QueueState {
  std::string name;
  uint32_t owner = kNoValue;  // the TPipe or TBufPool the buffers come from
  int64_t depth = 0;
  uint32_t in_que = kNoValue;
  std::map<int, Channel> channels;  // by HardEvent: the queue's own and those of enque/deque user positions
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
  uint32_t owner = kNoValue;
};

struct PoolState {
  std::string name;
  uint32_t owner = kNoValue, base = kNoValue, end = kNoValue;  // parent allocator; region [base, end)
  Memory memory = Memory::UB;
  int64_t buf_id_size = 0, buffers = 0;
};

// The user positions of an enque (attrs 0, 1) or deque (attrs 1, 2): -1 if none.
int64_t user_position(const Op& op, int which) { return op.attr_int((op.code == OpCode::Deque ? 1 : 0) + which); }

class Lowering {
 public:
  Lowering(Kernel& k, int64_t ub_start) : k_(k), rw_(k), ub_start_(ub_start) {}

  void run() {
    // Constant ids the kernel's own set_flag/wait_flag use are not handed out.
    auto user_ids = constant_event_ids(k_);
    for (int e = 0; e < kHardEventCount; ++e) reserved_[e] = user_ids[e];
    find_user_events(k_.body);
    region(k_.body, true, false);
    OpList tail;
    for (uint32_t q : queue_order_) drain_pending(tail, queues_.at(q));
    for (auto& op : tail) k_.body.ops.push_back(std::move(op));
    for (int e = 0; e < kHardEventCount; ++e) k_.reserved_event_ids[e] = static_cast<uint8_t>(reserved_[e]);
  }

 private:
  // A TPipe may be created inside an `if` (a cube-only kernel's `if asc.ascend_is_aic():`), not in a loop.
  // Buffers may be carved (init_buffer, init_buf_pool) and a pipe reset inside a loop or if only when the body
  // leaves the framework as it found it -- `for ...: pipe.init(); pipe.init_buffer(...); ...; pipe.reset()`:
  // the body is lowered once, so every iteration (and either branch) must start from the same queues, ids and
  // free bytes, and nothing the body sets up outlives it (the final hand-overs are drained at the top level).
  void region(Region& r, bool top, bool in_loop) {
    OpList out;
    for (auto& op : r.ops) {
      for (auto& sub : op->regions) {
        State before = state();
        std::optional<Setup> first = std::move(nested_setup_);
        nested_setup_.reset();
        region(sub, false, in_loop || op->code == OpCode::For);
        if (nested_setup_ && !(state() == before))
          fail(ASC_ERR_UNSUPPORTED, nested_setup_->loc,
               "{} inside a loop or if must leave the pipe as the body found it: reset the pipe (pipe.reset()) "
               "before the end of the body, and do not reset queues or buffers set up outside it",
               nested_setup_->name);
        if (!nested_setup_) nested_setup_ = std::move(first);
      }
      if (op->code == OpCode::StackBuffer && op->operands.empty()) op->operands = {stack_base(out, op->loc)};
      if (!op->info().framework || op->code == OpCode::LocalAuto) {
        out.push_back(std::move(op));
        continue;
      }
      bool pipe_in_if = op->code == OpCode::PipeCreate && !in_loop;
      if (!top && op->code == OpCode::PipeCreate && !pipe_in_if)
        fail(ASC_ERR_UNSUPPORTED, op->loc, "{} must be at the kernel's top level or in an if, not inside a loop",
             op->info().name);
      if (!top && !nested_setup_ &&
          (op->code == OpCode::InitQueue || op->code == OpCode::InitTBuf || op->code == OpCode::InitBufPool ||
           op->code == OpCode::PipeReset))
        nested_setup_ = Setup{std::string(op->info().name), op->loc};
      lower(*op, out);
    }
    r.ops = std::move(out);
  }

  // What a loop or if body that sets up buffers must leave unchanged.
  struct State {
    std::vector<std::pair<uint32_t, uint32_t>> queues, bufs;  // value, base var
    std::vector<uint32_t> pools, queue_order;
    std::vector<std::pair<std::pair<uint32_t, Memory>, uint32_t>> next;
    std::array<uint32_t, kHardEventCount> reserved{};
    bool operator==(const State& o) const {
      return queues == o.queues && bufs == o.bufs && pools == o.pools && queue_order == o.queue_order &&
             next == o.next && reserved == o.reserved;
    }
  };

  State state() const {
    State s;
    for (const auto& [v, q] : queues_) s.queues.emplace_back(v, q.base);
    for (const auto& [v, b] : bufs_) s.bufs.emplace_back(v, b.base);
    for (const auto& [v, p] : pools_) s.pools.push_back(v);
    s.queue_order = queue_order_;
    s.next.assign(pipe_next_.begin(), pipe_next_.end());
    s.reserved = reserved_;
    return s;
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
    auto pool = pools_.find(pipe);
    const Op* pool_def = k_.value_def[pipe];
    bool is_pool = pool_def && pool_def->code == OpCode::BufPoolCreate;
    if (is_pool && pool != pools_.end() && pool->second.memory != memory)
      fail(ASC_ERR_VERIFY, loc, "{}: TBufPool '{}' is in the {}, not the {}", name, pool->second.name,
           memory_name(pool->second.memory), memory_name(memory));
    if (!pipe_next_.count(key)) {
      if (is_pool) {  // a pool without memory: every tensor carved from it is a run-time error
        std::string pool_name = pool_def->attr(2).s.empty() ? "pool" : pool_def->attr(2).s;
        no_memory(out, "TBufPool '" + pool_name + "' has no memory (call init_buf_pool first)", DType::UInt8, pos, loc);
        pipe_next_[key] = var(out, i32(out, -1, loc), loc);
      } else {
        pipe_next_[key] = var(out, i32(out, memory == Memory::UB ? ub_start_ : 0, loc), loc);
      }
    }
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
    if (pool != pools_.end()) {  // a negative length when the region runs past the pool's end
      rw_.emit(out, OpCode::LocalCreate, {next, rw_.binary(out, OpCode::SubS, pool->second.end, next, loc)},
               {int_attr(static_cast<int64_t>(DType::UInt8)), int_attr(static_cast<int64_t>(pos)),
                string_attr(name + " runs past the end of TBufPool '" + pool->second.name + "'")},
               loc);
    }
  }

  // The first Unified Buffer byte nothing has handed out: the latest pipe's next free byte (Ascend C's
  // PopStackBuffer takes the framework's temporary buffer from there), or the end of the static allocations.
  uint32_t stack_base(OpList& out, const Location& loc) {
    auto it = pipe_next_.find({last_pipe_, Memory::UB});
    return it != pipe_next_.end() ? it->second : i32(out, ub_start_, loc);
  }

  // A tensor whose use is a run-time error: `what` says why.
  uint32_t no_memory(OpList& out, const std::string& what, DType d, Position pos, const Location& loc,
                     uint32_t result = kNoValue) {
    return rw_
        .emit(out, OpCode::LocalCreate, {var(out, i32(out, -1, loc), loc), i32(out, 0, loc)},  // not a constant: the
                                                                                               // error is at run time
              {int_attr(static_cast<int64_t>(d)), int_attr(static_cast<int64_t>(pos)), string_attr(what)}, loc, result)
        .result;
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

  // The queue's state, or null (after a run-time error for `op`) if it has no buffers.
  QueueState* queue(uint32_t v, const Op& op, OpList& out) {
    auto it = queues_.find(v);
    if (it != queues_.end()) return &it->second;
    const Op* def = k_.value_def[v];
    if (op.code == OpCode::QueQuery || op.code == OpCode::FreeAllEvent) return nullptr;
    std::string what = "queue '" + (def->attr(3).s.empty() ? std::string("queue") : def->attr(3).s) +
                       "' has no buffers (call pipe.init_buffer first)";
    bool tensor = op.code == OpCode::AllocTensor || op.code == OpCode::Deque;
    DType d = tensor ? static_cast<DType>(op.attr_int(0)) : DType::UInt8;
    Position pos = static_cast<Position>(def->attr_int(op.code == OpCode::Deque ? 1 : 0));
    no_memory(out, what, d, pos, op.loc, tensor ? op.result : kNoValue);
    return nullptr;
  }

  // The channel an enque/deque uses: the queue's own event, or that of its user positions.
  Channel& channel(QueueState& q, const Op& op) {
    int event = q.enq_event;
    if (user_position(op, 0) >= 0) event = user_event(op);
    return q.channels.at(event);
  }

  // A user hand-over from or to GM: the pipes that write and read the local side.
  int user_event(const Op& op) {
    int64_t src = user_position(op, 0), dst = user_position(op, 1);
    Position local = static_cast<Position>(src == ASC_POS_GM ? dst : src);
    int e = find_hard_event(producer_pipe(local), consumer_pipe(local));
    if (e < 0)
      fail(ASC_ERR_UNSUPPORTED, op.loc,
           "{}: the user positions hand data from pipe {} to pipe {}, which has no HardEvent", op.info().name,
           pipe_name(producer_pipe(local)), pipe_name(consumer_pipe(local)));
    return e;
  }

  void lower(Op& op, OpList& out) {
    const Location& loc = op.loc;
    switch (op.code) {
      case OpCode::PipeCreate:
        pipe_next_[{op.result, Memory::UB}] = var(out, i32(out, ub_start_, loc), loc);
        last_pipe_ = op.result;
        return;
      case OpCode::QueCreate:
      case OpCode::TBufCreate: return;  // state is created by init_buffer
      case OpCode::InitQueue: return init_queue(op, out);
      case OpCode::InitTBuf: {
        const Op* def = k_.value_def[op.operands[1]];
        BufState& b = bufs_[op.operands[1]];
        b.owner = op.operands[0];
        count_pool_buffers(op.operands[0], 1, def->attr(1).s.empty() ? "buf" : def->attr(1).s, loc);
        carve(out, op.operands[0], op.operands[2], 1, static_cast<Position>(def->attr_int(0)), def->attr(1).s, loc,
              &b.base, &b.len);
        return;
      }
      case OpCode::AllocTensor: {
        QueueState* qp = queue(op.operands[0], op, out);
        if (!qp) return;
        QueueState& q = *qp;
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
        QueueState* q = queue(op.operands[0], op, out);
        if (!q) return;
        Channel& c = channel(*q, op);
        step(out, *q, c.enques, OpCode::SetFlag, c.event, c.first_id, loc);
        increment(out, q->in_que, loc);
        return;
      }
      case OpCode::Deque: {
        QueueState* q = queue(op.operands[0], op, out);
        if (!q) return;
        Channel& c = channel(*q, op);
        uint32_t slot = step(out, *q, c.deques, OpCode::WaitFlag, c.event, c.first_id, loc);
        assign(out, q->in_que, rw_.binary_const(out, OpCode::SubS, q->in_que, 1, loc), loc);
        tensor_at(out, q->base, q->len, slot, static_cast<DType>(op.attr_int(0)), q->dst, loc, op.result);
        return;
      }
      case OpCode::QueQuery: return query(op, out);
      case OpCode::FreeAllEvent: {
        if (QueueState* q = queue(op.operands[0], op, out)) drain_and_clear(out, *q, loc);
        return;
      }
      case OpCode::BufPoolCreate: return;
      case OpCode::InitBufPool: return init_buf_pool(op, out);
      case OpCode::BufPoolReset: return reset(op.operands[0], false, out, loc);
      case OpCode::PipeReset: return reset(op.operands[0], true, out, loc);
      case OpCode::PipeGetBaseAddr: {
        bool ub = position_memory(static_cast<Position>(op.attr_int(0))) == Memory::UB;
        rw_.emit(out, OpCode::Const, {}, {int_attr(static_cast<int64_t>(DType::Int32)), int_attr(ub ? ub_start_ : 0)},
                 loc, op.result);
        return;
      }
      case OpCode::FreeTensor: {
        QueueState* qp = queue(op.operands[0], op, out);
        if (!qp) return;
        QueueState& q = *qp;
        uint32_t slot = step(out, q, q.frees, OpCode::SetFlag, q.free_event, q.free_id, loc);
        uint32_t bit = rw_.binary(out, OpCode::ShlS, i32(out, 1, loc), slot, loc);
        assign(out, q.pending, rw_.binary(out, OpCode::OrS, q.pending, bit, loc), loc);
        return;
      }
      case OpCode::TBufGet:
      case OpCode::TBufGetWithOffset: {
        auto it = bufs_.find(op.operands[0]);
        DType d = static_cast<DType>(op.attr_int(0));
        Position pos = k_.type_of(op.result).position;
        if (it == bufs_.end()) {
          const std::string& name = k_.value_def[op.operands[0]]->attr(1).s;
          no_memory(
              out,
              "TBuf '" + (name.empty() ? std::string("buf") : name) + "' has no memory (call pipe.init_buffer first)",
              d, pos, loc, op.result);
          return;
        }
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
    q.owner = op.operands[0];
    q.depth = def->attr_int(2);
    count_pool_buffers(q.owner, q.num, "queue '" + q.name + "'", loc);
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
    for (uint32_t* c : {&q.allocs, &q.enques, &q.deques, &q.frees, &q.pending, &q.in_que}) *c = var(out, zero, loc);
    q.channels[q.enq_event] = Channel{q.enq_event, q.enq_id, q.enques, q.deques};
    add_user_channels(op.operands[1], q, out);
    queue_order_.push_back(op.operands[1]);
    queues_.emplace(op.operands[1], q);
  }

  // The user-position events of each queue's enques/deques, found before lowering moves ops.
  void find_user_events(const Region& r) {
    for (const auto& op : r.ops) {
      for (const auto& sub : op->regions) find_user_events(sub);
      if ((op->code == OpCode::Enque || op->code == OpCode::Deque) && user_position(*op, 0) >= 0)
        user_events_[op->operands[0]].insert(user_event(*op));
    }
  }

  // Ids and counters for each user-position event the queue's enques/deques use.
  void add_user_channels(uint32_t que, QueueState& q, OpList& out) {
    auto it = user_events_.find(que);
    if (it == user_events_.end()) return;
    for (int event : it->second) {
      if (q.channels.count(event)) continue;
      Channel c;
      c.event = event;
      c.first_id = reserve(event, q.num, q.loc, "queue '" + q.name + "'");
      c.enques = var(out, i32(out, 0, q.loc), q.loc);
      c.deques = var(out, i32(out, 0, q.loc), q.loc);
      q.channels[event] = c;
    }
  }

  // A TBufPool holds at most buf_id_size buffers.
  void count_pool_buffers(uint32_t owner, int64_t n, const std::string& who, const Location& loc) {
    auto it = pools_.find(owner);
    if (it == pools_.end()) return;
    it->second.buffers += n;
    if (it->second.buffers > it->second.buf_id_size)
      fail(ASC_ERR_VERIFY, loc, "{}: TBufPool '{}' holds at most buf_id_size={} buffers, this makes {}", who,
           it->second.name, it->second.buf_id_size, it->second.buffers);
  }

  void init_buf_pool(Op& op, OpList& out) {
    const Location& loc = op.loc;
    const Op* def = k_.value_def[op.operands[1]];
    PoolState p;
    p.name = def->attr(2).s.empty() ? "pool" : def->attr(2).s;
    p.owner = op.operands[0];
    p.buf_id_size = def->attr_int(1);
    Position pos = static_cast<Position>(def->attr_int(0));
    p.memory = position_memory(pos);
    uint32_t base = kNoValue, len = kNoValue;
    auto share = op.operands.size() > 3 ? pools_.find(op.operands[3]) : pools_.end();
    if (share != pools_.end()) {  // the same bytes as share_buf's region, from its start
      base = var(out, share->second.base, loc);
      uint32_t b32 = rw_.cast(out, op.operands[2], DType::Int32, loc);
      len = rw_.binary_const(
          out, OpCode::MulS,
          rw_.binary_const(out, OpCode::FloorDivS, rw_.binary_const(out, OpCode::AddS, b32, 31, loc), 32, loc), 32,
          loc);
      rw_.emit(out, OpCode::LocalCreate, {base, len},
               {int_attr(static_cast<int64_t>(DType::UInt8)), int_attr(static_cast<int64_t>(pos)), string_attr(p.name)},
               loc);
    } else {
      carve(out, op.operands[0], op.operands[2], 1, pos, "TBufPool '" + p.name + "'", loc, &base, &len);
    }
    p.base = base;
    p.end = var(out, rw_.binary(out, OpCode::AddS, base, len, loc), loc);
    pipe_next_[{op.operands[1], p.memory}] = var(out, base, loc);
    pools_[op.operands[1]] = p;
  }

  // Whether `owner` is `root` or a pool carved (directly or not) from it.
  bool owned_by(uint32_t owner, uint32_t root) const {
    for (int depth = 0; owner != kNoValue && depth < 64; ++depth) {
      if (owner == root) return true;
      auto it = pools_.find(owner);
      owner = it == pools_.end() ? kNoValue : it->second.owner;
    }
    return false;
  }

  // tbufpool.reset / tpipe.reset: every hand-back of the owner's queues is waited
  // for and a PIPE_ALL barrier orders the next users of the bytes after them.
  // A pool keeps its buffers (counters restart); a pipe forgets its queues, bufs
  // and pools, frees their event ids and hands out its memory from the start again.
  void reset(uint32_t root, bool whole_pipe, OpList& out, const Location& loc) {
    uint32_t zero = i32(out, 0, loc);
    for (uint32_t qv : queue_order_) {
      QueueState& q = queues_.at(qv);
      if (!owned_by(q.owner, root)) continue;
      drain_and_clear(out, q, loc);
      for (uint32_t c : {q.allocs, q.enques, q.deques, q.frees, q.in_que}) assign(out, c, zero, loc);
      for (auto& [event, c] : q.channels) {
        assign(out, c.enques, zero, loc);
        assign(out, c.deques, zero, loc);
      }
    }
    rw_.emit(out, OpCode::PipeBarrier, {}, {int_attr(static_cast<int64_t>(Pipe::All))}, loc);
    if (!whole_pipe) return;
    std::vector<uint32_t> kept;
    for (uint32_t qv : queue_order_) {
      QueueState& q = queues_.at(qv);
      if (!owned_by(q.owner, root)) {
        kept.push_back(qv);
        continue;
      }
      uint32_t ids = (1u << q.num) - 1;
      reserved_[q.free_event] &= ~(ids << q.free_id);
      for (auto& [event, c] : q.channels) reserved_[event] &= ~(ids << c.first_id);
      queues_.erase(qv);
    }
    queue_order_ = kept;
    for (auto it = bufs_.begin(); it != bufs_.end();) it = owned_by(it->second.owner, root) ? bufs_.erase(it) : ++it;
    std::vector<uint32_t> gone;
    for (auto& [pv, p] : pools_)
      if (owned_by(p.owner, root)) gone.push_back(pv);
    for (auto it = pipe_next_.begin(); it != pipe_next_.end();) {
      bool pool_gone = std::find(gone.begin(), gone.end(), it->first.first) != gone.end();
      if (pool_gone) {
        it = pipe_next_.erase(it);
        continue;
      }
      if (it->first.first == root)
        assign(out, it->second, i32(out, it->first.second == Memory::UB ? ub_start_ : 0, loc), loc);
      ++it;
    }
    for (uint32_t pv : gone) pools_.erase(pv);
  }

  // vacant_in_que: fewer than depth tensors enqueued (num when depth is 0); has_tensor_in_que:
  // at least one; get_tensor_count_in_que: how many; has_idle_buffer: a buffer not allocated.
  void query(Op& op, OpList& out) {
    const Location& loc = op.loc;
    int64_t what = op.attr_int(0);
    auto it = queues_.find(op.operands[0]);
    if (it == queues_.end()) {  // no buffers: empty, nothing to allocate
      int64_t depth = k_.value_def[op.operands[0]]->attr_int(2);
      int64_t v = what == 0 ? depth > 0 : 0;
      DType d = what == 2 ? DType::Int32 : DType::Bool;
      rw_.emit(out, OpCode::Const, {}, {int_attr(static_cast<int64_t>(d)), int_attr(v)}, loc, op.result);
      return;
    }
    QueueState& q = it->second;
    switch (what) {
      case 0:
        rw_.emit(out, OpCode::CmpLt, {q.in_que, i32(out, q.depth > 0 ? q.depth : q.num, loc)}, {}, loc, op.result);
        return;
      case 1: rw_.emit(out, OpCode::CmpGt, {q.in_que, i32(out, 0, loc)}, {}, loc, op.result); return;
      case 2: rw_.emit(out, OpCode::AddS, {q.in_que, i32(out, 0, loc)}, {}, loc, op.result); return;
      default: {
        uint32_t held = rw_.binary(out, OpCode::SubS, q.allocs, q.frees, loc);
        rw_.emit(out, OpCode::CmpLt, {held, i32(out, q.num, loc)}, {}, loc, op.result);
      }
    }
  }

  void drain_and_clear(OpList& out, QueueState& q, const Location& loc) {
    drain_pending(out, q);
    assign(out, q.pending, i32(out, 0, loc), loc);
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
  uint32_t last_pipe_ = kNoValue;  // the pipe created last: the framework's temporary buffer follows its buffers
  std::map<std::pair<uint32_t, Memory>, uint32_t> pipe_next_;  // (pipe value, memory) -> var of its next free byte
  std::map<uint32_t, QueueState> queues_;
  std::vector<uint32_t> queue_order_;
  std::map<uint32_t, BufState> bufs_;
  std::map<uint32_t, PoolState> pools_;
  std::map<uint32_t, std::set<int>> user_events_;  // queue value -> HardEvents of its user-position enque/deque
  std::array<uint32_t, kHardEventCount> reserved_{};
  struct Setup {  // (a copy: lowered ops are gone when the region is done)
    std::string name;
    Location loc;
  };
  std::optional<Setup> nested_setup_;  // the first init_buffer/reset in the loop or if body being lowered
};

}  // namespace

void lower_framework(Kernel& kernel, int64_t ub_start) { Lowering(kernel, ub_start).run(); }

}  // namespace asc
