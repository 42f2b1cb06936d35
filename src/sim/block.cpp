#include "sim/block.h"

#include <algorithm>
#include <cstring>
#include <tuple>

#include "ir/effects.h"
#include "sim/bank_conflicts.h"
#include "sim/copy_bytes.h"
#include "sim/cross_core.h"
#include "sim/gm_checksum.h"
#include "sim/handlers.h"
#include "sim/scalar_math.h"
#include "sim/vector_mask.h"

namespace asc::sim {
namespace {

// How L2 treats an access to GM tensor `t` (a read, or a write): its set_l2_cache_hint's mode where the hint's
// CacheRwMode covers the access.
L2Policy l2_policy(const RtValue& t, bool write) {
  if (!(t.cache_rw & (write ? kCacheWrite : kCacheRead))) return L2Policy::Normal;
  switch (t.cache_mode) {
    case kCacheModeDisable: return L2Policy::Bypass;
    case kCacheModePersistent: return L2Policy::Persistent;
    case kCacheModeLast: return L2Policy::Last;
    default: return L2Policy::Normal;
  }
}

}  // namespace

const DeqScaleReg Block::kUnsetDeq{};

Block::Block(const LaunchContext& ctx, const CoreInstance& core, const Memories& local, LineCost* per_op) {
  restart(ctx, core, local, per_op);
}

void Block::restart(const LaunchContext& ctx, const CoreInstance& core, const Memories& local, LineCost* per_op) {
  ctx_ = &ctx;
  core_ = core;
  local_ = local;
  static_cast<BlockRegisters&>(*this) = BlockRegisters{};
  ops_left_ = ctx.options.max_ops ? ctx.options.max_ops : UINT64_MAX;
  budgeted_ = ctx.options.timeout_ns || ctx.options.cancel;
  regs_.assign(ctx.initial_regs.begin(), ctx.initial_regs.end());
  if (regs_.size() < ctx.kernel.value_types.size()) regs_.resize(ctx.kernel.value_types.size());  // (zeros past them)
  if (scalar_in_.size() < kMaxIssuedOperands) scalar_in_.resize(kMaxIssuedOperands);
  // What a run leaves behind: queues a failed run did not drain, flags set and never waited for, the state made at
  // its first use, the results not taken.
  for (PipeQueue& q : queues_) q.clear();
  flags_.clear();  // (sized again at the first set_flag, for this launch's platform)
  buffers_.reset();
  aipp_.reset();
  rare_.reset();
  cross_set_clocks_.clear();
  staged_.reset();
  race_.reset();
  undefined_reads_.clear();
  const CostModel& cost = ctx.platform.cost;
  const bool cube = core.kind == CoreKind::AIC;
  timeline_.restart(cost, per_op, ctx.options.record, cube ? cost.aic_mte_bytes_per_cycle : cost.mte_bytes_per_cycle,
                    cube ? cost.aic_read_latency : 0);
  warnings_.clear();
  warned_ops_.clear();
  output_.clear();
  gm_writes_.clear();
  gm_reads_.clear();
  clocks_.clear();
}

void Block::run() {
  region(ctx_->kernel.body);
  drain_or_deadlock();
  finish();
}

// synccheck at kernel end: a flag still set means a set_flag without its wait.
// The hardware still computes the right result, so this is a warning.
void Block::finish() {
  warn_held_buffers();
  if (!ctx_->options.sanitize || flags_set_ == 0) return;
  uint32_t ids = platform().info.max_event_id;
  for (size_t i = 0; i < flags_.size(); ++i)
    if (flags_[i])
      warnings_.push_back(
          fmt::format("synccheck: {}: set_flag(HardEvent.{}, {}) at {} is never waited for; pair every set_flag with a "
                      "wait_flag",
                      label(), hard_event(static_cast<int64_t>(i / ids)).name, i % ids, flags_[i]->loc.str()));
}

static bool truthy(const Kernel& k, uint32_t v, const RtValue& r) {
  return dtype_is_float(k.type_of(v).dtype) ? r.f != 0.0 : r.i != 0;
}

void Block::count_op(const Op& op) {
  if (ops_left_-- == 0)
    fail(ASC_ERR_RUNTIME, op.loc,
         "kernel '{}' ran more than {} operations (loop iterations included) and was stopped: does a loop never end? "
         "(stream option max_ops, ASC_MAX_OPS)",
         kernel().name, ctx_->options.max_ops);
  if (--until_check_ == 0) {
    until_check_ = kCheckEvery;
    if (budgeted_) check_budget(op);
  }
}

void Block::check_budget(const Op& op) {
  const LaunchOptions& o = ctx_->options;
  if (o.cancel && o.cancel->load(std::memory_order_relaxed) != o.cancel_epoch)
    fail(ASC_ERR_RUNTIME, op.loc, "kernel '{}' was interrupted (SIGINT) and stopped", kernel().name);
  if (o.timeout_ns && tick_clock::now() > ctx_->deadline)
    fail(ASC_ERR_RUNTIME, op.loc,
         "kernel '{}' ran longer than its time budget of {:g} s and was stopped: does a loop never end? (stream "
         "option timeout_ms, ASC_TIMEOUT_S; 0: no limit)",
         kernel().name, static_cast<double>(o.timeout_ns) / 1e9);
}

void Block::region(const Region& r) {
  for (const auto& op_ptr : r.ops) {
    if (stopped_) return;
    const Op& op = *op_ptr;
    count_op(op);
    switch (op.code) {
      case OpCode::For: {
        int64_t lb = regs_[op.operands[0]].i, ub = regs_[op.operands[1]].i, step = regs_[op.operands[2]].i;
        if (step == 0) fail(ASC_ERR_RUNTIME, op.loc, "range() step is zero");
        for (int64_t v = lb; !stopped_ && (step > 0 ? v < ub : v > ub); v += step) {
          count_op(op);
          regs_[op.result].i = v;
          region(op.regions[0]);
        }
        break;
      }
      case OpCode::If: region(op.regions[truthy(kernel(), op.operands[0], regs_[op.operands[0]]) ? 0 : 1]); break;
      default:
        if (op_runs_on_scalar_unit(op))
          scalar_op(op);
        else
          issue(op);
    }
  }
}

void Block::scalar_op(const Op& op) {
  if (op.code == OpCode::WaitFlag) {
    wait_on_scalar(op, op.attr_int(0), regs_[op.operands[0]].i);
    return;
  }
  if (op.code == OpCode::SetFlag) {
    Issued entry{&op, {}, timeline_.dispatch(), {}, {}, {}, {}};
    entry.in[0] = regs_[op.operands[0]];
    set_flag(entry);
    drain();
    return;
  }
  if (op.code == OpCode::GetBuf || op.code == OpCode::RlsBuf) {
    buffer_token_on_scalar(op);
    return;
  }
  if (op.operands.size() > scalar_in_.size()) scalar_in_.resize(op.operands.size());
  RtValue* in = scalar_in_.data();
  for (size_t i = 0; i < op.operands.size(); ++i) in[i] = regs_[op.operands[i]];
  RtValue* out = op.result == kNoValue ? nullptr : &regs_[op.result];
  if (op.info().effects.empty()) {
    exec_fn(op.code)(*this, op, in, out);
    timeline_.scalar(op);
    return;
  }
  // get_value / set_value: the scalar unit touching the Unified Buffer. The op runs on S while it does (a
  // data-dependent access, dump_acc_chk_point's, is resolved against the running op).
  const Op* was_running = running_op_;
  Pipe was_pipe = running_pipe_;
  running_op_ = &op;
  running_pipe_ = Pipe::S;
  uint64_t dispatched = timeline_.dispatch();
  size_t writes_before = gm_writes_.size();
  uint64_t bytes = check_effects(op, Pipe::S, in);
  exec_fn(op.code)(*this, op, in, out);
  if (staged_count_) flush_staged();
  hash_gm_writes(writes_before);
  timeline_.run(op, Pipe::S, dispatched, bytes);
  running_op_ = was_running;
  running_pipe_ = was_pipe;
}

void Block::issue(const Op& op) {
  Pipe pipe = op_pipe(op);
  if (op.code == OpCode::PipeBarrier && (pipe == Pipe::All || pipe == Pipe::S)) {
    if (pipe == Pipe::All) barrier_all(op);
    return;
  }
  if (op.operands.size() > kMaxOperands)
    fail(ASC_ERR_INTERNAL, op.loc, "{} has more operands than a pipe queue entry holds", op.info().name);
  auto& q = queues_[static_cast<size_t>(pipe)];
  Issued& entry = q.next();
  ++queued_;
  entry.op = &op;
  entry.dispatched = timeline_.dispatch();
  entry.mask = mask_reg_;
  entry.atomic = atomic_;
  if (reads_deq_scale(op.code)) entry.deq = rare_ ? rare_->deq : kUnsetDeq;
  RtValue* args = entry.in.data();
  if (op.operands.size() > kMaxIssuedOperands) {
    entry.wide.resize(op.operands.size());
    args = entry.wide.data();
  } else if (!entry.wide.empty()) {
    entry.wide.clear();
  }
  for (size_t i = 0; i < op.operands.size(); ++i) args[i] = regs_[op.operands[i]];
  update_mask_register(op, args);
  if (op.code == OpCode::GetBuf) entry.ticket = buffer_ticket(op, args[0].i);
  // Only a pipe that was idle can make progress now; a set_flag or an rls_buf may release others.
  if (q.size() == 1 && step(pipe) && (op.code == OpCode::SetFlag || op.code == OpCode::RlsBuf)) drain();
  if (op.result == kNoValue) return;
  // The scalar unit reads the op's result (a special register) once the op ran.
  drain();
  for (const Issued& waiting : q)
    if (waiting.op == &op)
      fail(ASC_ERR_DEADLOCK, op.loc,
           "deadlock: the scalar unit waits for {}'s result, but pipe {} is blocked behind an earlier wait_flag that "
           "nothing has set yet",
           op.info().name, pipe_name(pipe));
}

bool Block::step(Pipe p) {
  auto& q = queues_[static_cast<size_t>(p)];
  if (q.empty()) return false;
  const Issued& head = q.front();
  const Op& op = *head.op;
  switch (op.code) {
    case OpCode::WaitFlag:
      if (!wait_flag(head)) return false;
      break;
    case OpCode::SetFlag: set_flag(head); break;
    case OpCode::GetBuf:
      if (!get_buf(head, p)) return false;
      break;
    case OpCode::RlsBuf: rls_buf(head, p); break;
    case OpCode::PipeBarrier:  // a barrier on one pipe: its earlier instructions are complete
      if (ctx_->options.sanitize) race().barrier(p);
      timeline_.run(op, p, head.dispatched, 0);
      break;
    default: {
      issued_mask_ = head.mask;
      if (reads_deq_scale(op.code)) rare().issued_deq = head.deq;
      running_op_ = &op;
      running_pipe_ = p;
      running_dispatched_ = head.dispatched;
      size_t writes_before = gm_writes_.size();
      const RtValue* args = head.args();
      uint64_t bytes = check_effects(op, p, args);
      if (op.info().work) bytes = work_units(op, args);
      // An op with a result (gather_mask's count) holds the scalar unit until it ran: see issue().
      RtValue* out = op.result == kNoValue ? nullptr : &regs_[op.result];
      if (head.atomic.op != AtomicOp::None && writes_gm(op, args))
        exec_atomic(op, head, out, writes_before);
      else
        exec_op(op, args, out);
      if (staged_count_) flush_staged();
      hash_gm_writes(writes_before);
      timeline_.run(op, p, head.dispatched, bytes, bank_conflict_cycles(op, args), gm_span_, vector_rate(op));
    }
  }
  q.pop_front();
  --queued_;
  return true;
}

void Block::drain_or_deadlock() {
  drain();
  if (queued_)  // (what drain could not run waits for a flag nothing sets)
    for (const auto& q : queues_)
      if (!q.empty()) deadlock(q.front());
}

void Block::drain() {
  bool progress = queued_ != 0;
  while (progress) {
    progress = false;
    for (int p = 0; p < kPipeSlots; ++p)  // (an empty queue tested here: most of a small block's queues are)
      while (!queues_[static_cast<size_t>(p)].empty() && step(static_cast<Pipe>(p))) progress = true;
  }
}

size_t Block::flag_index(const Op& op, int64_t event, int64_t id) const {
  uint32_t max_id = platform().info.max_event_id;
  if (id < 0 || id >= static_cast<int64_t>(max_id))
    fail(ASC_ERR_INVALID_ARGUMENT, op.loc, "{} event id {} is out of range (0..{})", op.info().name, id, max_id - 1);
  return static_cast<size_t>(event) * max_id + static_cast<size_t>(id);
}

void Block::set_flag(const Issued& entry) {
  const Op& op = *entry.op;
  int64_t event = op.attr_int(0), id = entry.in[0].i;
  size_t index = flag_index(op, event, id);
  if (flags_.empty())  // sized on the first set_flag: most blocks of small kernels never set one
    flags_.assign(static_cast<size_t>(kHardEventCount) * platform().info.max_event_id, nullptr);
  const Op*& flag = flags_[index];
  if (flag)
    fail(ASC_ERR_RUNTIME, op.loc,
         "set_flag(HardEvent.{}, {}) on a flag that is still set by the set_flag at {}; every set_flag needs a "
         "wait_flag before the same event id is set again",
         hard_event(event).name, id, flag->loc.str());
  flag = &op;
  ++flags_set_;
  Pipe src = hard_event(event).src;
  if (ctx_->options.sanitize) race().set_flag(src, static_cast<int64_t>(index));
  timeline_.set_flag(op, src, static_cast<int64_t>(index), entry.dispatched);
}

bool Block::wait_flag(const Issued& entry) {
  const Op& op = *entry.op;
  int64_t event = op.attr_int(0);
  size_t index = flag_index(op, event, entry.in[0].i);
  if (flags_.empty() || !flags_[index]) return false;
  flags_[index] = nullptr;
  --flags_set_;
  Pipe dst = hard_event(event).dst;
  if (ctx_->options.sanitize) race().wait_flag(dst, static_cast<int64_t>(index));
  timeline_.wait_flag(op, dst, static_cast<int64_t>(index), entry.dispatched);
  return true;
}

void Block::wait_on_scalar(const Op& op, int64_t event, int64_t id) {
  drain();
  Issued entry{&op, {}, timeline_.dispatch(), {}, {}, {}, {}};
  entry.in[0].i = id;
  if (!wait_flag(entry)) deadlock(entry);
  (void)event;
}

void Block::barrier_all(const Op& op) {
  drain_or_deadlock();
  if (ctx_->options.sanitize) race().barrier(Pipe::All);
  timeline_.barrier_all(op);
}

void Block::check_ub_watch(const Op& op, Pipe pipe, uint64_t lo, uint64_t hi, bool write) const {
  const unsigned kind = (pipe == Pipe::S ? 0u : pipe == Pipe::V ? 2u : 4u) + (write ? 1u : 0u);
  static const char* const kNames[] = {"scalar read",  "scalar write", "vector read",
                                       "vector write", "MTE read",     "MTE write"};
  const auto& watch = rare_->ub_watch;  // (made by watch_unified_buffer, which set ub_watched_)
  for (size_t r = 0; r < watch.size(); ++r) {
    const UbWatch& w = watch[r];
    if ((w.kinds >> kind & 1u) && lo < w.hi && w.lo < hi)
      fail(ASC_ERR_RUNTIME, op.loc,
           "check_local_memory_ia: {} {} ({}) touches Unified Buffer bytes [{}, {}) that watch register {} guards "
           "([{}, {})): the board raises an exception",
           label(), op.info().name, kNames[kind], std::max(lo, w.lo), std::min(hi, w.hi), r, w.lo, w.hi);
  }
}

void Block::data_sync_barrier(const Op& op, MemBarrier what) {
  constexpr auto bit = [](Pipe p) { return 1u << static_cast<unsigned>(p); };
  const uint32_t gm_pipes = bit(Pipe::MTE2) | bit(Pipe::MTE3) | bit(Pipe::FIX);
  const uint32_t ub_pipes = bit(Pipe::V) | bit(Pipe::MTE2) | bit(Pipe::MTE3);
  uint32_t pipes = what == MemBarrier::Ddr ? gm_pipes : what == MemBarrier::Ub ? ub_pipes : ~0u;
  drain();
  for (int p = 0; p < kPipeSlots; ++p)
    if ((pipes & (1u << p)) && !queues_[p].empty()) deadlock(queues_[p].front());
  // The Unified Buffer accesses before it are ordered with everything after it.
  if (ctx_->options.sanitize && what != MemBarrier::Ddr) race().barrier(Pipe::All);
  timeline_.wait_for_pipes(op, pipes);
}

void Block::deadlock(const Issued& blocked) {
  const Op& op = *blocked.op;
  if (op.code == OpCode::GetBuf) buffer_deadlock(blocked, op_pipe(op));
  const HardEventInfo& ev = hard_event(op.attr_int(0));
  fail(ASC_ERR_DEADLOCK, op.loc,
       "deadlock: wait_flag(HardEvent.{}, {}) on pipe {} can never complete: no set_flag(HardEvent.{}, {}) on "
       "pipe {} is pending or issued before it is needed",
       ev.name, blocked.in[0].i, pipe_name(ev.dst), ev.name, blocked.in[0].i, pipe_name(ev.src));
}

uint64_t Block::check_effects(const Op& op, Pipe pipe, const RtValue* in) {
  const auto& effects = op.info().effects;
  if (effects.size() > kMaxEffects)
    fail(ASC_ERR_INTERNAL, op.loc, "{} has {} memory effects; the Model holds {}", op.info().name, effects.size(),
         kMaxEffects);
  // A copy's cost is the bytes it moves: its smaller side (a strided side's span counts its gaps: an Nd2Nz
  // copy's GM rows, a load_data's source fractals); other ops are charged by their largest operand.
  uint64_t largest = 0, smallest = UINT64_MAX;
  gm_span_ = {};
  auto note = [&](size_t i, uint64_t moved) {
    largest = std::max(largest, moved);
    if (moved > 0) smallest = std::min(smallest, moved);
    const RtValue& t = in[effects[i].tensor];
    if (!is_local_mem(t.mem) && gm_span_.hi == gm_span_.lo)
      gm_span_ = {static_cast<uint32_t>(t.mem), effect_ranges_[i].first, effect_ranges_[i].second, effects[i].write,
                  l2_policy(t, effects[i].write)};
  };
  std::array<int64_t, kMaxOperands> ints;  // the operands' integer values (only the op's are set and read)
  for (size_t k = 0; k < std::min(op.operands.size(), ints.size()); ++k) ints[k] = in[k].i;
  for (size_t i = 0; i < effects.size(); ++i) {
    const MemEffect& e = effects[i];
    DType dtype = kernel().type_of(op.operands[e.tensor]).dtype;
    EffectForm form = effect_form(e);
    if (form == EffectForm::DataDependent) {  // the handler checks each access (dynamic_access)
      const RtValue& t = in[e.tensor];
      effect_tensors_[i] = t;
      if (is_local_mem(t.mem) && e.block_aligned && t.addr % platform().info.block_bytes != 0)
        fail(ASC_ERR_MISALIGNED, op.loc, "{}: address {} in the {} is not 32-byte aligned", op.info().name, t.addr,
             memory_name(memory_of(t)));
      effect_ranges_[i] = {static_cast<uint64_t>(t.addr), static_cast<uint64_t>(t.addr)};
      effect_ptrs_[i] = is_local_mem(t.mem) ? local_base(t) + t.addr : ctx_->gm[t.mem].ptr + t.addr;
      continue;
    }
    if (form == EffectForm::Strided) {  // the vector unit's work is its repeats, however far apart their blocks
      effect_ptrs_[i] = strided_memory(op, in, dtype, e);
      note(i, static_cast<uint64_t>(std::max<int64_t>(0, effect_repeats_[i])) * platform().info.repeat_bytes);
      continue;
    }
    int64_t repeats =
        form == EffectForm::Results ? repeat_mask(*this, op, in, e.mask_operand, e.count_operand, dtype).repeats : 0;
    EffectElements span = decode_effect(op, kernel(), i, ints.data(), repeats);
    effect_ptrs_[i] = memory(op, in[e.tensor], dtype, span.offset, span.count, e);
    uint64_t moved =
        span.moved >= 0 ? static_cast<uint64_t>(span.moved) : effect_ranges_[i].second - effect_ranges_[i].first;
    note(i, moved);
  }
  if (op.info().cost == CostKind::GmCopy || op.info().cost == CostKind::UbCopy)
    largest = smallest == UINT64_MAX ? 0 : smallest;
  for (size_t i = 0; ub_watched_ && i < effects.size(); ++i)
    if (in[effects[i].tensor].mem == kMemUB)
      check_ub_watch(op, pipe, effect_ranges_[i].first, effect_ranges_[i].second, effects[i].write);
  if (!ctx_->options.sanitize) return largest;
  RaceChecker& race = this->race();
  race.tick(pipe);
  undefined_reads_.clear();
  RaceChecker::Ranges* undefined = propagates_undefined(op, pipe, in) ? &undefined_reads_ : nullptr;
  for (size_t i = 0; i < effects.size(); ++i) {
    auto [lo, hi] = effect_ranges_[i];
    const RtValue& t = in[effects[i].tensor];
    const MemEffect& e = effects[i];
    if (is_local_mem(t.mem) && effect_form(e) == EffectForm::Blocks && ints[e.gap_operand] > 0) {
      // rows of blocks with gaps: each row its own access, so that another pipe may use the gaps meanwhile (the
      // rest of a band copied into L1 between the rows the cube reads)
      const uint64_t row = static_cast<uint64_t>(ints[e.block_len_operand]) * 32;
      const uint64_t pitch = row + static_cast<uint64_t>(ints[e.gap_operand]) * 32;
      for (uint64_t at = lo; at < hi; at += pitch) race.access(op, pipe, space_of(t), at, at + row, e.write, undefined);
      continue;
    }
    race.access(op, pipe, space_of(t), lo, hi, e.write, undefined);
    if (is_local_mem(t.mem) || hi <= lo) continue;
    const bool write = effects[i].write;
    GmRows rows;
    if (GmRowsFn rows_of = write ? op.info().gm_rows : op.info().gm_read_rows) {
      rows = rows_of(op, ints.data(), dtype_size(kernel().type_of(op.operands[effects[i].tensor]).dtype));
    }
    auto record = [&](uint64_t from, uint64_t to) {
      if (write)
        record_gm_write(t.mem, from, to, op);
      else
        record_gm_read(t.mem, from, to, op);
    };
    if (rows.count <= 0) {
      record(lo, hi);
      continue;
    }
    for (int64_t r = 0; r < rows.count; ++r) {
      uint64_t start = lo + static_cast<uint64_t>(r * rows.stride);
      record(start, std::min(hi, start + static_cast<uint64_t>(rows.bytes)));
    }
  }
  if (!undefined_reads_.empty()) warn_undefined_reads(op);
  return largest;
}

// The mask/repeat form: checks the span from the first to the last data block
// the instruction touches (only blocks holding a selected element count).
uint8_t* Block::strided_memory(const Op& op, const RtValue* in, DType dtype, const MemEffect& e) {
  const RtValue& t = in[e.tensor];
  RepeatMask mask = repeat_mask(*this, op, in, e.mask_operand, e.repeat_operand, mask_dtype(kernel(), op));
  int64_t repeats = mask.repeats, blk = in[e.blk_stride_operand].i, rep = in[e.rep_stride_operand].i;
  bool counter = op.attr_int(0) == kMaskFromRegister && issued_mask_.counter;
  if (!counter && (repeats < 0 || repeats > 255))
    fail(ASC_ERR_INVALID_ARGUMENT, op.loc, "{}: repeat_times {} is outside 0..255", op.info().name, repeats);
  // BinaryRepeatParams strides are uint8; UnaryRepeatParams block strides uint16, repeat strides uint8.
  int64_t max_blk = op.info().family == VecFamily::BINARY ? 255 : 65535;
  if (blk < 0 || blk > max_blk || rep < 0 || rep > 255)
    fail(ASC_ERR_INVALID_ARGUMENT, op.loc, "{}: block stride {} must be 0..{} and repeat stride {} 0..255",
         op.info().name, blk, max_blk, rep);
  if (e.write && blk == 0)
    fail(ASC_ERR_INVALID_ARGUMENT, op.loc, "{}: a destination block stride of 0 is undefined on the hardware",
         op.info().name);
  size_t which = static_cast<size_t>(&e - op.info().effects.data());
  effect_repeats_[which] = repeats;
  if (t.addr % platform().info.block_bytes != 0)
    fail(ASC_ERR_MISALIGNED, op.loc, "{}: address {} in the {} is not 32-byte aligned", op.info().name, t.addr,
         memory_name(memory_of(t)));
  int64_t lo, hi;
  if (!mask.extent(dtype_size(dtype), blk, rep, &lo, &hi)) {  // touches nothing: any address will do
    effect_ranges_[which] = {static_cast<uint64_t>(t.addr), static_cast<uint64_t>(t.addr)};
    return local_base(t);
  }
  uint64_t tensor_bytes = t.len == kUnknownLength ? UINT64_MAX : t.len * dtype_size(dtype);
  uint64_t cap = local_bytes(t, op);
  // (In unsigned arithmetic: the address can be anything a kernel computed.)
  uint64_t end = static_cast<uint64_t>(t.addr) + static_cast<uint64_t>(hi);
  const bool inside = t.addr >= 0 && static_cast<uint64_t>(hi) <= cap && end <= cap;
  if (static_cast<uint64_t>(hi) > tensor_bytes) {
    if (!inside || ctx_->options.strict)
      fail(ASC_ERR_OUT_OF_BOUNDS, op.loc,
           "{} {} bytes [{}, {}) of a tensor of {} bytes ({} repeats, block stride {}, repeat stride {}){}",
           op.info().name, e.write ? "writes" : "reads", lo, hi, tensor_bytes, repeats, blk, rep,
           inside ? " (strict mode: the board would run it, inside the " + std::string(memory_name(memory_of(t))) + ")"
                  : "");
    local_overuse(op, e.write ? "writes" : "reads", static_cast<uint64_t>(lo), static_cast<uint64_t>(hi), tensor_bytes,
                  memory_of(t));
  }
  if (!inside)
    fail(ASC_ERR_OUT_OF_BOUNDS, op.loc, "{} reaches {} byte {} but {} has {} bytes", op.info().name,
         memory_name(memory_of(t)), end, platform().name, cap);
  effect_ranges_[which] = {static_cast<uint64_t>(t.addr + lo), static_cast<uint64_t>(t.addr + hi)};
  return local_base(t) + t.addr;
}

const VectorRate* Block::vector_rate(const Op& op) const {
  const OpInfo& info = op.info();
  // an op with no operand to price by (get_gather_mask_remain_count) costs add's
  if (info.cost != CostKind::Vector || info.dtype_operand >= op.operands.size()) return nullptr;
  DType dtype = kernel().type_of(op.operands[info.dtype_operand]).dtype;
  DType src = info.vcost == VecCost::Cast ? kernel().type_of(op.operands[1]).dtype : dtype;  // cast: dst, src
  return &platform().cost.vector->lookup(info.vcost, dtype, src);
}

uint64_t Block::bank_conflict_cycles(const Op& op, const RtValue* in) const {
  if (op.info().cost != CostKind::Vector || platform().arch != Arch::C220) return 0;
  const auto& effects = op.info().effects;
  std::array<BlockPattern, kMaxEffects> patterns;
  size_t widest = 1;
  for (const MemEffect& e : effects)
    widest = std::max<size_t>(widest, dtype_size(kernel().type_of(op.operands[e.tensor]).dtype));
  int64_t repeats = 0;
  const int64_t block = platform().info.block_bytes;
  const int64_t repeat_blocks = platform().info.repeat_bytes / block;
  for (size_t i = 0; i < effects.size(); ++i) {
    const MemEffect& e = effects[i];
    const RtValue& t = in[e.tensor];
    EffectForm form = effect_form(e);
    if (t.mem != kMemUB || (form != EffectForm::Strided && form != EffectForm::Count)) return 0;
    // a repeat holds 256 bytes of the widest operand: a narrower one moves fewer blocks (a cast's half source)
    int64_t per_repeat = std::max<int64_t>(
        1, repeat_blocks * static_cast<int64_t>(dtype_size(kernel().type_of(op.operands[e.tensor]).dtype)) /
               static_cast<int64_t>(widest));
    if (form == EffectForm::Strided) {
      patterns[i] = {t.addr / block, in[e.blk_stride_operand].i, in[e.rep_stride_operand].i, per_repeat, e.write};
      repeats = std::max(repeats, effect_repeats_[i]);
    } else {  // count mode: contiguous repeats
      auto [lo, hi] = effect_ranges_[i];
      int64_t bytes = static_cast<int64_t>(hi - lo);
      patterns[i] = {static_cast<int64_t>(lo) / block, 1, per_repeat, per_repeat, e.write};
      repeats = std::max(repeats, (bytes + per_repeat * block - 1) / (per_repeat * block));
    }
  }
  if (effects.empty() || repeats <= 0) return 0;
  uint64_t beats = vector_beats(patterns.data(), effects.size(), repeats);
  // an extra beat is one more UB access: the calibrated repeat of add (the add sample's case 5 against case 6),
  // whatever the instruction computes
  return (beats - static_cast<uint64_t>(repeats)) * platform().cost.vector_repeat;
}

uint64_t Block::work_units(const Op& op, const RtValue* in) const {
  std::array<int64_t, kMaxOperands> ints;  // only the op's operands are set and read
  for (size_t k = 0; k < std::min(op.operands.size(), ints.size()); ++k) ints[k] = in[k].i;
  DType sized = kernel().type_of(op.operands[op.info().extent_size_operand]).dtype;
  return static_cast<uint64_t>(std::max<int64_t>(0, op.info().work(op, ints.data(), dtype_size(sized))));
}

uint64_t Block::local_bytes(const RtValue& t, const Op& op) const {
  Memory memory = memory_of(t);
  if (!core_has_memory(ctx_->kernel.options.kernel_type, core_.kind, memory))
    fail(ASC_ERR_UNSUPPORTED, op.loc,
         "{} touches the {} of a {} core, but this code runs on {} ({}); set the kernel type, e.g. "
         "@asc.jit(kernel_type=KernelType.{}), and keep cube and vector code apart with asc.ascend_is_aic() / "
         "asc.ascend_is_aiv()",
         op.info().name, memory_name(memory), memory == Memory::UB ? "vector (AIV)" : "cube (AIC)", label(),
         core_kind_name(core_.kind), memory == Memory::UB ? "AIV_ONLY" : "AIC_ONLY");
  return memory_bytes(platform(), memory);
}

void Block::copy_to_effect(size_t effect, const uint8_t* src, uint64_t bytes) {
  uint8_t* dst = effect_ptrs_[effect];
  if (!gm_writes_.empty()) {  // the sanitizer recorded this write to GM: checksum it in the same pass
    GmWrite& w = gm_writes_.back();
    const auto [lo, hi] = effect_ranges_[effect];
    const bool apart = src + bytes <= dst || dst + bytes <= src;
    if (w.op == running_op_ && !w.hashed && w.lo == lo && w.hi == hi && hi - lo == bytes &&
        ctx_->gm[w.arg].ptr + lo == dst && apart) {
      w.hash = copy_checksummed(dst, src, bytes, store_for_gm(ctx_->gm[w.arg].size));
      w.hashed = true;
      return;
    }
  }
  const bool to_gm = gm_span_.write && gm_span_.hi > gm_span_.lo;  // the op's GM effect is this destination
  copy_bytes(dst, src, bytes, to_gm ? store_for_gm(ctx_->gm[gm_span_.mem].size) : Store::Cached);
}

void Block::hash_gm_writes(size_t from) {
  for (size_t i = from; i < gm_writes_.size(); ++i) {
    GmWrite& w = gm_writes_[i];
    if (w.atomic || w.hashed) continue;
    const GmBuffer& buf = ctx_->gm[w.arg];
    if (w.hi <= buf.size) {
      w.hash = checksum(buf.ptr + w.lo, w.hi - w.lo);
    } else {  // reaches past the caller's bytes: hash the bytes as the Model holds them
      std::vector<uint8_t> bytes(w.hi - w.lo);
      read_gm(buf, w.lo, w.hi, bytes.data());
      w.hash = checksum(bytes.data(), bytes.size());
    }
  }
}

uint8_t* Block::padded_gm(const Op& op, uint32_t arg, uint64_t lo, uint64_t bytes, bool write, size_t which) {
  const GmBuffer& buf = ctx_->gm[arg];
  const uint64_t hi = lo + bytes;
  // Once per op, argument and zone: reaching the segment past the allocation is told even when the padding was.
  const bool past_allocation = hi > buf.allocation;
  if (memcheck_first(op, uint64_t{arg} * 2 + past_allocation)) {
    const std::string poison =
        fmt::format("the Model reads 0x{:02X} bytes there (NaN as a float, -1 as an integer)", kPaddingPoison);
    if (!past_allocation)
      warnings_.push_back(
          fmt::format("memcheck: {}: {} at {} {} GM bytes [{}, {}) of kernel argument {}, past its {} bytes into the "
                      "allocation's padding (the board's allocator rounds it up to {}); {}",
                      label(), op.info().name, op.loc.str(), write ? "writes" : "reads", std::max(lo, buf.size), hi,
                      arg, buf.size, buf.allocation, write ? "the Model kept them apart from your buffer" : poison));
    else
      warnings_.push_back(fmt::format(
          "memcheck: {}: {} at {} {} GM bytes [{}, {}) of kernel argument {}, past its {} bytes and its {}-byte "
          "allocation into the rest of the caching allocator's {}-byte segment: on the board those bytes belong to "
          "other tensors or are free, so {}",
          label(), op.info().name, op.loc.str(), write ? "writes" : "reads", std::max(lo, buf.size), hi, arg, buf.size,
          buf.allocation, buf.reach,
          write ? "the write may corrupt another tensor (the Model kept it apart from your buffers)"
                : "they read whatever is there; " + poison));
  }
  if (!staged_) staged_ = std::make_unique<std::array<StagedGm, kMaxEffects>>();
  StagedGm& s = (*staged_)[which];
  s.arg = arg;
  s.lo = lo;
  s.write = write;
  s.data.resize(bytes);
  read_gm(buf, lo, hi, s.data.data());
  if (write) s.before = s.data;
  if (!s.active) ++staged_count_;
  s.active = true;
  return s.data.data();
}

void Block::flush_staged() {
  for (StagedGm& s : *staged_) {  // (staged_count_ > 0: made)
    if (!s.active) continue;
    if (s.write) write_gm_changed(ctx_->gm[s.arg], s.lo, s.lo + s.data.size(), s.data.data(), s.before.data());
    s.active = false;
  }
  staged_count_ = 0;
}

void Block::local_overuse(const Op& op, const char* verb, uint64_t lo, uint64_t hi, uint64_t tensor_bytes,
                          Memory memory) {
  constexpr uint64_t kLocal = uint64_t{1} << 40;  // apart from the GM argument keys of memcheck_first
  if (!memcheck_first(op, kLocal)) return;
  warnings_.push_back(fmt::format(
      "memcheck: {}: {} at {} {} bytes [{}, {}) of a local tensor of {} bytes (past its end, still inside the {}); "
      "the board runs it on whatever the {} holds there. Size the tensor for the elements the instruction uses",
      label(), op.info().name, op.loc.str(), verb, lo, hi, tensor_bytes, memory_name(memory), memory_name(memory)));
}

void Block::record_gm_write(uint32_t arg, uint64_t lo, uint64_t hi, const Op& op) {
  gm_writes_.push_back({arg, lo, hi, &op});
  gm_writes_.back().epoch = epoch_;
  gm_writes_.back().point = point_;
}

// A loop reading a tensor tile by tile must not keep an entry per tile: a read
// touching a recent one of the same op, argument and epoch extends it (the last
// few are looked at, for loop bodies reading several tensors).
void Block::record_gm_read(uint32_t arg, uint64_t lo, uint64_t hi, const Op& op) {
  constexpr size_t kRecent = 8;
  const size_t n = gm_reads_.size();
  for (size_t k = n; k > 0 && n - k < kRecent; --k) {
    GmRead& r = gm_reads_[k - 1];
    if (r.op == &op && r.arg == arg && r.epoch == epoch_ && r.point == point_ && lo <= r.hi && r.lo <= hi) {
      r.lo = std::min(r.lo, lo);
      r.hi = std::max(r.hi, hi);
      return;
    }
  }
  if (n >= read_cap_) coarsen_gm_reads();
  gm_reads_.push_back({arg, lo, hi, &op, epoch_, point_});
}

// Keeps the read list bounded: ranges of one op, argument and epoch merge
// across ever wider gaps until half the cap is left. A merged range covers
// bytes not read (a coarser report, never a missed one).
void Block::coarsen_gm_reads() {
  auto key = [](const GmRead& r) { return std::make_tuple(r.arg, r.epoch, r.point, r.op->index); };
  std::sort(gm_reads_.begin(), gm_reads_.end(), [&](const GmRead& a, const GmRead& b) {
    return std::make_tuple(a.arg, a.epoch, a.point, a.op->index, a.lo) <
           std::make_tuple(b.arg, b.epoch, b.point, b.op->index, b.lo);
  });
  constexpr uint64_t kWhole = uint64_t{1} << 62;  // wider than any GM buffer: one range per key
  for (uint64_t gap = 0; gm_reads_.size() > kMaxGmReads / 2; gap = gap ? gap * 16 : 64) {
    size_t out = 0;
    for (size_t k = 1; k < gm_reads_.size(); ++k) {
      GmRead& last = gm_reads_[out];
      const GmRead& r = gm_reads_[k];
      if (key(last) == key(r) && (r.lo <= last.hi || r.lo - last.hi <= gap))
        last.hi = std::max(last.hi, r.hi);
      else
        gm_reads_[++out] = r;
    }
    gm_reads_.resize(out + 1);
    if (gap >= kWhole) break;  // more (op, argument, epoch) keys than the cap: keep them all
  }
  // Still full (that many keys: sync_all in a loop): a larger cap, so the next coarsening is as far away.
  while (gm_reads_.size() > read_cap_ / 2) read_cap_ *= 2;
}

std::vector<uint32_t>& Block::clock() {
  if (clocks_.empty()) clocks_.assign(point_, std::vector<uint32_t>(ctx_->cross ? ctx_->cross->core_count() : 1, 0));
  return clocks_.back();
}

std::vector<uint32_t> Block::release() {
  std::vector<uint32_t> published = clock();
  published[core_.index] = point_;
  ++point_;
  clocks_.push_back(published);
  return published;
}

void Block::acquire(const std::vector<uint32_t>& published) {
  std::vector<uint32_t> next = clock();
  for (size_t c = 0; c < next.size() && c < published.size(); ++c) next[c] = std::max(next[c], published[c]);
  ++point_;
  clocks_.push_back(std::move(next));
}

void Block::print(std::string_view text) {
  if (ctx_->printed && ctx_->options.max_output) {  // the launch's text is capped: keep what fits, then nothing
    uint64_t before = ctx_->printed->fetch_add(text.size(), std::memory_order_relaxed);
    if (before + text.size() > ctx_->options.max_output) {
      text = text.substr(0, before < ctx_->options.max_output ? ctx_->options.max_output - before : 0);
      ctx_->output_cut->store(true, std::memory_order_relaxed);
    }
  }
  for (char c : text) {
    if (output_line_start_) {
      if (ctx_->kernel.options.kernel_type == KernelType::AivOnly)
        output_ += fmt::format("[Block {}/{}] ", core_.block_idx, ctx_->block_dim);
      else
        output_ += fmt::format("[{} {}/{}] ", core_kind_name(core_.kind), core_.block_idx, core_.of);
    }
    output_ += c;
    output_line_start_ = c == '\n';
  }
}

uint8_t* Block::raw_access(const RtValue& t, int64_t offset, int64_t bytes, bool write) {
  const Op& op = *running_op_;
  bool local = is_local_mem(t.mem);
  uint64_t limit = local ? local_bytes(t, op) : ctx_->gm[t.mem].size;
  int64_t lo = t.addr + offset;
  if (lo < 0 || bytes < 0 || static_cast<uint64_t>(lo) + static_cast<uint64_t>(bytes) > limit)
    fail(ASC_ERR_OUT_OF_BOUNDS, op.loc, "{} {} bytes [{}, {}) of {}, which has {} bytes", op.info().name,
         write ? "writes" : "reads", lo, lo + bytes, local ? memory_name(memory_of(t)) : "its GM buffer", limit);
  if (ctx_->options.sanitize && bytes > 0)
    race().access(op, running_pipe_, space_of(t), static_cast<uint64_t>(lo), static_cast<uint64_t>(lo + bytes), write);
  return (local ? local_base(t) : ctx_->gm[t.mem].ptr) + lo;
}

uint8_t* Block::dynamic_access(size_t effect, int64_t offset, int64_t bytes, bool record) {
  const Op& op = *running_op_;
  const MemEffect& e = op.info().effects[effect];
  const RtValue& t = effect_tensors_[effect];
  DType dtype = kernel().type_of(op.operands[e.tensor]).dtype;
  uint64_t limit = t.len != kUnknownLength ? t.len * dtype_size(dtype)
                   : is_local_mem(t.mem)   ? local_bytes(t, op) - static_cast<uint64_t>(t.addr)
                                           : ctx_->gm[t.mem].size - static_cast<uint64_t>(t.addr);
  uint64_t end = static_cast<uint64_t>(offset) + static_cast<uint64_t>(bytes);  // both below 2^63: no wrap
  if (offset < 0 || bytes < 0 || end > limit)
    fail(ASC_ERR_OUT_OF_BOUNDS, op.loc, "{} {} bytes [{}, {}) of operand {}, a tensor of {} bytes", op.info().name,
         e.write ? "writes" : "reads", offset, end, e.tensor, limit);
  uint64_t lo = static_cast<uint64_t>(t.addr + offset);
  if (record && ub_watched_ && t.mem == kMemUB) check_ub_watch(op, running_pipe_, lo, lo + bytes, e.write);
  if (record && ctx_->options.sanitize && bytes > 0)
    race().access(op, running_pipe_, space_of(t), lo, lo + bytes, e.write);
  return effect_ptrs_[effect] + offset;
}

uint8_t* Block::memory(const Op& op, const RtValue& tensor, DType dtype, int64_t offset, int64_t count,
                       const MemEffect& e) {
  const char* verb = e.write ? "writes" : "reads";
  const char* role = e.write ? "destination" : "source";
  if (count < 0) fail(ASC_ERR_OUT_OF_BOUNDS, op.loc, "{}: element count {} is negative", op.info().name, count);
  if (offset < 0 || (tensor.len != kUnknownLength && static_cast<uint64_t>(offset) >= tensor.len))
    fail(ASC_ERR_OUT_OF_BOUNDS, op.loc, "{}: index {} is outside the tensor's {} elements", op.info().name, offset,
         tensor.len);
  RtValue t = tensor;
  if (offset) {
    t.addr = moved_address(t.addr, offset, dtype_size(dtype));
    if (t.len != kUnknownLength) t.len -= static_cast<uint64_t>(offset);
  }
  uint64_t size = dtype_size(dtype);
  // No memory is anywhere near 2^48 bytes; this also keeps count * size from overflowing.
  constexpr int64_t kMaxElements = int64_t{1} << 48;
  if (count > kMaxElements)
    fail(ASC_ERR_OUT_OF_BOUNDS, op.loc, "{}: element count {} exceeds every memory", op.info().name, count);
  uint64_t bytes = static_cast<uint64_t>(count) * size;
  uint64_t block = platform().info.block_bytes;
  if (e.whole_blocks && bytes % block != 0) {  // the NPU copies whole blocks only: the tail is dropped
    if (std::find(warned_ops_.begin(), warned_ops_.end(), &op) == warned_ops_.end()) {
      warned_ops_.push_back(&op);
      warnings_.push_back(fmt::format(
          "alignment: {}: {}: {} elements of {} is {} bytes, not a whole number of {}-byte blocks; as on the NPU only "
          "the first {} bytes were copied. Copy a multiple of {} elements (or use data_copy_pad)",
          op.loc.str(), op.info().name, count, dtype_name(dtype), bytes, block, bytes / block * block, block / size));
    }
    bytes = bytes / block * block;
    count = static_cast<int64_t>(bytes / size);
  }
  const bool past_len = t.len != kUnknownLength && static_cast<uint64_t>(count) > t.len;
  size_t which = static_cast<size_t>(&e - op.info().effects.data());
  effect_ranges_[which] = {static_cast<uint64_t>(t.addr), static_cast<uint64_t>(t.addr) + bytes};
  const uint64_t end = static_cast<uint64_t>(t.addr) + bytes;
  if (is_local_mem(t.mem)) {
    uint64_t cap = local_bytes(t, op);
    auto where = [&] { return memory_name(memory_of(t)); };  // (for the messages only)
    if (e.block_aligned && t.addr % platform().info.block_bytes != 0)
      fail(ASC_ERR_MISALIGNED, op.loc, "{}: {} address {} in the {} is not 32-byte aligned", op.info().name, role,
           t.addr, where());
    const bool inside = t.addr >= 0 && end <= cap;
    if (past_len && (!inside || ctx_->options.strict))
      fail(ASC_ERR_OUT_OF_BOUNDS, op.loc, "{} {} {} elements but the {} tensor has only {} elements{}", op.info().name,
           verb, count, role, t.len,
           inside ? fmt::format(" (strict mode: the board would run it, inside the {})", where()) : "");
    if (!inside)
      fail(ASC_ERR_OUT_OF_BOUNDS, op.loc, "{} {} {} bytes [{}, {}) but the {} of {} has {} bytes", op.info().name, verb,
           where(), t.addr, end, where(), platform().name, cap);
    if (past_len)
      local_overuse(op, verb, static_cast<uint64_t>(offset) * size, static_cast<uint64_t>(offset) * size + bytes,
                    (t.len + static_cast<uint64_t>(offset)) * size, memory_of(t));
    return local_base(t) + t.addr;
  }
  const GmBuffer& buf = ctx_->gm[t.mem];
  // A GM tensor's length is the Model's bookkeeping, not the board's: past it, the argument's bytes decide.
  // Only a view ending before its argument's end keeps its own length.
  if (past_len && (t.addr < 0 || static_cast<uint64_t>(t.addr) + t.len * size < buf.size))
    fail(ASC_ERR_OUT_OF_BOUNDS, op.loc, "{} {} {} elements but the {} tensor has only {} elements", op.info().name,
         verb, count, role, t.len);
  if (t.addr < 0 || end > buf.extent() || (end > buf.size && ctx_->options.strict))
    fail(ASC_ERR_OUT_OF_BOUNDS, op.loc,
         "{} {} GM bytes [{}, {}) of kernel argument {}, which has only {} bytes{}; nothing was {}", op.info().name,
         verb, t.addr, end, t.mem, buf.size,
         buf.extent() <= buf.size ? ""
         : t.addr >= 0 && end <= buf.extent()
             ? fmt::format(" (strict mode: on the board it reaches into {})",
                           end <= buf.allocation
                               ? fmt::format("the padding of its {}-byte allocation", buf.allocation)
                               : fmt::format("the caching allocator's {}-byte segment past its {}-byte allocation",
                                             buf.reach, buf.allocation))
             : fmt::format(" (its allocation on the board has {}, and the segment the board's allocator maps for it "
                           "ends at {}: past that the board faults too)",
                           buf.allocation, buf.reach),
         e.write ? "written" : "read");
  if (end > buf.size) return padded_gm(op, t.mem, static_cast<uint64_t>(t.addr), bytes, e.write, which);
  return buf.ptr + t.addr;
}

}  // namespace asc::sim
