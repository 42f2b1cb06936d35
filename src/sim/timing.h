// The timing model of one block: every instruction gets a start and end cycle.
// The scalar unit dispatches in program order (one instruction per
// scalar_issue cycles); each pipe runs its instructions in order; a pipe op
// starts when it is dispatched, its pipe is free, and (for wait_flag) its flag
// has been set. Pipes therefore overlap exactly as flags allow.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <map>
#include <vector>

#include "ir/ir.h"
#include "target/platform.h"

namespace asc::sim {

struct TraceEvent {
  const Op* op;
  Pipe pipe;
  uint64_t start, end;
  // A GM copy moves its bytes over [moving, end), after its latency; other ops have moving == end. HBM sharing
  // (hbm_sharing.h) stretches the moving part only: latencies and compute run at their own speed.
  uint64_t moving;
};

struct LineCost {
  uint64_t cycles = 0;
  uint64_t count = 0;
};

// How L2 treats a GM access, from its tensor's set_l2_cache_hint (sim/hbm_sharing.h): by the CacheMode where the
// hint's CacheRwMode covers the access (a read or a write), else Normal.
enum class L2Policy : uint8_t { Normal, Bypass, Persistent, Last };

// Where a GM transfer reads or writes: GM argument `mem`, bytes [lo, hi) of it (the span, gaps included).
struct GmSpan {
  uint32_t mem = 0;
  uint64_t lo = 0, hi = 0;
  bool write = false;
  L2Policy l2 = L2Policy::Normal;
};

// A GM transfer's use of HBM: `bytes` moved evenly over [start, end), after its latency, at its engine's rate. The
// launch shares HBM among every core's transfers in time (hbm_sharing.h); `span` says which GM bytes (re-reads of
// what fits in L2 are served from there).
struct GmFlow {
  uint64_t start, end;
  uint64_t bytes;
  uint32_t op;  // Op::index of the copy, and its pipe: where the stretch of its time is counted
  Pipe pipe;
  GmSpan span{};
};

class Timeline {
 public:
  // `mte_bytes_per_cycle`: this core's GM copy engines (the cube core's are wider: CostModel). `read_latency`: the
  // cycles from a GM read's request to its first byte (0: a read pays gm_latency like any copy). A read requests as
  // soon as its pipe has issued what came before it, not when that completed, so its latency runs behind the
  // transfers already queued and shows only where the queue ran dry (a flag wait, an empty pipe).
  // `per_op`: where each instruction adds its cycles and count, by Op::index (the launch's sums, not this block's
  // own: a table per block was most of starting one). A Timeline is set up by restart, in place, for every block
  // its host thread's Block runs.
  void restart(const CostModel& cost, LineCost* per_op, bool record, double mte_bytes_per_cycle,
               uint32_t read_latency = 0);

  // The scalar unit dispatches an instruction: returns its dispatch cycle.
  uint64_t dispatch();
  void scalar(const Op& op);
  // A pipe instruction dispatched at `issued`, moving or computing `bytes`; `stalls` cycles more (bank conflicts);
  // `span`: the GM a copy touches; `vector`: a CostKind::Vector op's rate (the platform's VectorCostTable entry for
  // its family and dtypes; nullptr: add's).
  void run(const Op& op, Pipe pipe, uint64_t issued, uint64_t bytes, uint64_t stalls = 0, const GmSpan& span = {},
           const VectorRate* vector = nullptr);
  void set_flag(const Op& op, Pipe src, int64_t key, uint64_t issued);
  // `dst` may be S: then the scalar unit itself waits.
  void wait_flag(const Op& op, Pipe dst, int64_t key, uint64_t issued);
  void barrier_all(const Op& op);
  // When a pipe instruction dispatched at `issued` can start; the scalar unit held until `cycle`.
  uint64_t start_of(Pipe pipe, uint64_t issued) const;
  void wait_until(uint64_t cycle) { scalar_ = std::max(scalar_, cycle); }

  // The cycle the scalar unit dispatches its next instruction at (get_system_cycle, print_time_stamp's timeStamp).
  uint64_t scalar_cycle() const { return scalar_; }
  uint64_t end() const;
  // The scalar unit waits for the earlier instructions of `pipes` (bit = Pipe) to complete.
  void wait_for_pipes(const Op& op, uint32_t pipes);
  const std::array<uint64_t, kPipeSlots>& busy() const { return busy_; }
  const std::vector<TraceEvent>& events() const { return events_; }
  std::vector<TraceEvent> take_events() { return std::move(events_); }
  bool copied() const { return !gm_flows_.empty(); }  // any GM transfer
  bool recorded() const { return recorded_; }         // any instruction (else busy() is all zero)
  std::vector<GmFlow> take_gm_flows() { return std::move(gm_flows_); }

 private:
  uint64_t cost_of(const Op& op, uint64_t bytes, const VectorRate* vector = nullptr) const;
  void record(const Op& op, Pipe pipe, uint64_t start, uint64_t end, uint64_t moving = UINT64_MAX);

  const CostModel* cost_ = nullptr;
  bool record_ = false;
  double mte_bytes_per_cycle_ = 1;
  uint32_t read_latency_ = 0;
  uint64_t scalar_ = 0;                      // the scalar unit's next dispatch cycle
  std::array<uint64_t, kPipeSlots> free_{};  // when each pipe has completed what it was given
  // When each pipe may issue its next instruction: free_ but where GM reads with read_latency_ are still in flight.
  std::array<uint64_t, kPipeSlots> queue_{};
  std::array<uint64_t, kPipeSlots> busy_{};
  // Whether record() ran since the restart: every change of free_, queue_ and busy_ records, so until then they are
  // all zero, and a restart or end() need not look at them (a block with nothing to do costs nothing there).
  bool recorded_ = false;
  struct FlagSet {
    uint64_t at;  // when the set fired
    Pipe pipe;
  };
  std::map<int64_t, FlagSet> flag_set_;
  std::vector<TraceEvent> events_;
  LineCost* per_op_ = nullptr;
  std::vector<GmFlow> gm_flows_;
};

}  // namespace asc::sim
