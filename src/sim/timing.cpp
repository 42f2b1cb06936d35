#include "sim/timing.h"

#include <algorithm>
#include <cmath>

namespace asc::sim {
namespace {
size_t idx(Pipe p) { return static_cast<size_t>(p); }
}  // namespace

void Timeline::restart(const CostModel& cost, LineCost* per_op, bool record, double mte_bytes_per_cycle,
                       uint32_t read_latency) {
  cost_ = &cost;
  record_ = record;
  mte_bytes_per_cycle_ = mte_bytes_per_cycle;
  read_latency_ = read_latency;
  per_op_ = per_op;
  scalar_ = 0;
  if (recorded_) {
    free_ = {};
    queue_ = {};
    busy_ = {};
    recorded_ = false;
  }
  flag_set_.clear();
  events_.clear();
  gm_flows_.clear();
}

uint64_t Timeline::dispatch() {
  uint64_t at = scalar_;
  scalar_ += cost_->scalar_issue;
  return at;
}

uint64_t Timeline::cost_of(const Op& op, uint64_t bytes, const VectorRate* vector) const {
  double repeats = std::ceil(static_cast<double>(bytes) / 256.0);
  switch (op.info().cost) {
    case CostKind::GmCopy:
      return cost_->gm_latency + static_cast<uint64_t>(std::ceil(static_cast<double>(bytes) / mte_bytes_per_cycle_));
    case CostKind::UbCopy:
      return cost_->vector_startup + static_cast<uint64_t>(std::ceil(bytes / cost_->ub_copy_bytes_per_cycle));
    case CostKind::Vector:
      if (!vector) return cost_->vector_startup + static_cast<uint64_t>(repeats) * cost_->vector_repeat;
      return static_cast<uint64_t>(std::llround(vector->head + repeats * vector->per_repeat));
    case CostKind::ScalarMemory: return cost_->scalar_memory;
    case CostKind::Flag: return 1;
    case CostKind::Structure: return 0;
    case CostKind::Scalar: return cost_->scalar_issue;
    case CostKind::Cube:
      return cost_->cube_startup + bytes;  // bytes: the op's work units (OpInfo::work)
    // dcci / dc_preload / icache preload move a cache line between the scalar unit's cache and GM: the scalar
    // unit waits one GM round trip
    case CostKind::Cache: return cost_->gm_latency;
  }
  return 1;
}

void Timeline::record(const Op& op, Pipe pipe, uint64_t start, uint64_t end, uint64_t moving) {
  recorded_ = true;
  busy_[idx(pipe)] += end - start;
  LineCost& line = per_op_[op.index];
  line.cycles += end - start;
  ++line.count;
  if (record_) events_.push_back({&op, pipe, start, end, std::min(moving, end)});
}

void Timeline::scalar(const Op& op) {
  uint64_t start = dispatch();
  uint64_t end = start + cost_of(op, 0);
  scalar_ = std::max(scalar_, end);
  record(op, Pipe::S, start, end);
}

void Timeline::run(const Op& op, Pipe pipe, uint64_t issued, uint64_t bytes, uint64_t stalls, const GmSpan& span,
                   const VectorRate* vector) {
  size_t p = idx(pipe);
  bool gm = op.info().cost == CostKind::GmCopy && bytes > 0;
  if (gm && read_latency_ > 0 && !span.write && span.hi > span.lo) {
    // A pipelined GM read: requested once the pipe has issued what came before it; its bytes move after its
    // latency and after the transfers ahead of it. Its line and the pipe are charged from the later of its
    // request and the previous transfer's end: only the latency nothing hid.
    uint64_t request = std::max(issued, queue_[p]);
    uint64_t start = std::max(request, free_[p]);
    uint64_t moving = std::max(request + read_latency_, free_[p]);
    uint64_t end =
        moving + static_cast<uint64_t>(std::ceil(static_cast<double>(bytes) / mte_bytes_per_cycle_)) + stalls;
    free_[p] = end;
    queue_[p] = request + 1;
    record(op, pipe, start, end, moving);
    gm_flows_.push_back({moving, end, bytes, op.index, pipe, span});
    return;
  }
  uint64_t start = std::max(issued, free_[p]);
  uint64_t end = start + cost_of(op, bytes, vector) + stalls;
  free_[p] = end;
  queue_[p] = end;
  if (pipe == Pipe::S) scalar_ = std::max(scalar_, end);
  uint64_t moving = gm ? start + cost_->gm_latency : end;
  record(op, pipe, start, end, moving);
  if (gm) gm_flows_.push_back({moving, end, bytes, op.index, pipe, span});
}

void Timeline::set_flag(const Op& op, Pipe src, int64_t key, uint64_t issued) {
  // A set fires once every earlier instruction of its pipe has finished.
  // It does not hold up the pipe's later GM reads (queue_), which may request while the earlier ones still move.
  uint64_t start = std::max(issued, src == Pipe::S ? scalar_ : free_[idx(src)]);
  flag_set_[key] = {start, src};
  if (src != Pipe::S) {
    if (queue_[idx(src)] >= free_[idx(src)]) queue_[idx(src)] = start + 1;
    free_[idx(src)] = start + 1;
  }
  record(op, src, start, start + 1);
}

void Timeline::wait_flag(const Op& op, Pipe dst, int64_t key, uint64_t issued) {
  // Between pipes the flag takes flag_latency to arrive; a pipe handing a buffer token to itself (rls_buf, then
  // get_buf on the same pipe) is ordered by the pipe, as a pipe_barrier orders it.
  auto set = flag_set_.find(key);
  uint64_t ready = set == flag_set_.end()    ? issued
                   : set->second.pipe == dst ? set->second.at + 1
                                             : set->second.at + cost_->flag_latency;
  // The wait holds the pipe's queue, not the transfers already in flight ahead of it (queue_ is free_ on a pipe
  // with none).
  uint64_t start = std::max({issued, dst == Pipe::S ? scalar_ : queue_[idx(dst)], ready});
  if (dst == Pipe::S) {
    scalar_ = start + 1;
  } else {
    queue_[idx(dst)] = start + 1;
    free_[idx(dst)] = std::max(free_[idx(dst)], start + 1);
  }
  record(op, dst, start, start + 1);
}

uint64_t Timeline::start_of(Pipe pipe, uint64_t issued) const { return std::max(issued, free_[idx(pipe)]); }

void Timeline::barrier_all(const Op& op) {
  uint64_t all = scalar_;
  for (uint64_t f : free_) all = std::max(all, f);
  for (uint64_t& f : free_) f = all;
  for (uint64_t& q : queue_) q = all;
  record(op, Pipe::S, scalar_, all);
  scalar_ = all;
}

void Timeline::wait_for_pipes(const Op& op, uint32_t pipes) {
  uint64_t done = scalar_;
  for (int p = 0; p < kPipeSlots; ++p)
    if (pipes & (1u << p)) done = std::max(done, free_[p]);
  record(op, Pipe::S, scalar_, done);
  scalar_ = done;
}

uint64_t Timeline::end() const {
  uint64_t e = scalar_;
  if (!recorded_) return e;  // (free_ all zero)
  for (uint64_t f : free_) e = std::max(e, f);
  return e;
}

}  // namespace asc::sim
