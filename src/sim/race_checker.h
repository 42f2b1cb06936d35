// The Model's racecheck / initcheck / synccheck for one block.
//
// Happens-before is tracked with one vector clock per pipe: an op on pipe P
// ticks P's own entry; set_flag snapshots the setting pipe's clock into the
// flag, wait_flag joins it into the waiting pipe's clock, pipe_barrier(ALL)
// joins all. Each memory (and each GM argument) has a shadow of byte ranges, each with its
// last writer and the last reader per pipe: a sorted vector, not a tree, since a
// kernel's ranges are few and mostly the same from one iteration to the next (an
// access usually matches one range exactly, or appends one past the last). An access that is not ordered
// after a conflicting earlier access (RAW, WAR, WAW) is a race; a read of
// bytes nothing wrote in this launch (or that hold what an op computed from
// such bytes) is an initcheck error, unless the caller collects those bytes
// to propagate them (Block::exec_propagating). Work is per instruction and
// byte range, never per element.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "ir/ir.h"

namespace asc::sim {

class RaceChecker {
 public:
  using Clock = std::array<uint64_t, kPipeSlots>;

  // `memory_pipes`: bit p set if the kernel has an op on pipe p that touches memory (Kernel::memory_pipes);
  // only those pipes can ever race with an access.
  explicit RaceChecker(uint32_t memory_pipes) : memory_pipes_(memory_pipes) {}

  // Starts an op on `pipe` (ticks its clock); its accesses follow.
  void tick(Pipe pipe);
  // An access to bytes [lo, hi) of a memory by the op last started on `pipe`.
  // `space` keeps memories apart (a Memory for the on-chip ones, kMemoryCount + i for GM argument i);
  // only the Unified Buffer is initcheck'ed (see access()). A read of undefined bytes fails, unless `undefined`
  // is given: then their ranges (Unified Buffer addresses) are appended to it.
  using Ranges = std::vector<std::pair<uint64_t, uint64_t>>;
  void access(const Op& op, Pipe pipe, uint32_t space, uint64_t lo, uint64_t hi, bool write,
              Ranges* undefined = nullptr);
  // Unified Buffer bytes [lo, hi), just written by `by`, hold no defined value: `by` computed them from bytes
  // nothing wrote. A later read of them is an initcheck error naming `by` (or propagates them further).
  void mark_undefined(uint64_t lo, uint64_t hi, const Op& by);
  void set_flag(Pipe src, int64_t key);
  void wait_flag(Pipe dst, int64_t key);
  void barrier(Pipe pipe);  // Pipe::All joins every clock
  // What `pipe` has done so far, as a clock (what a set_flag on it publishes).
  const Clock& clock(Pipe pipe) const { return clock_[static_cast<size_t>(pipe)]; }
  // Another core writing bytes `ranges` of this core's `memory` (Ascend 950's fixpipe L0C -> UB, UB -> L1), as
  // an op of `pipe` (one this core does not run) ordered after `known`: checked against this core's accesses like
  // an own op. `release`: every pipe is ordered after it from here on (the cross-core wait that made it visible).
  void foreign_write(const Op& op, Pipe pipe, Memory memory, const Clock& known, const Ranges& ranges, bool release);

 private:
  struct Use {
    uint64_t seq = 0;  // 0: none
    const Op* op = nullptr;
  };
  struct Segment {
    uint64_t start, end;
    Pipe writer_pipe = Pipe::S;
    Use writer;
    uint16_t readers_set = 0;  // bit p: readers[p] is pipe p's last read (a write clears them all in one store)
    std::array<Use, kPipeSlots> readers;
    bool written = false;              // by anything in this launch (initcheck), even once settled
    const Op* undefined_by = nullptr;  // written, with values this op computed from bytes nothing wrote
  };
  static_assert(kPipeSlots <= 16, "Segment::readers_set holds a bit per pipe");
  using Segments = std::vector<Segment>;  // sorted by start, disjoint: the bytes of one space touched so far

  // What one access does to the segments it covers: checks each piece, then records itself in it.
  struct Visit {
    const Op& op;
    Pipe pipe;
    uint32_t space;
    uint64_t seq;
    bool write, initcheck;
    Ranges* undefined;
  };
  void check(const Visit& v, const Segment& s, uint64_t lo, uint64_t hi) const;
  static void record(const Visit& v, Segment& s);
  // The index of the first segment of `segs` ending past byte `at` (segs.size(): none).
  static size_t first_ending_after(const Segments& segs, uint64_t at);
  // Cuts the segments of `segs` from index `from` on that overlap [lo, hi) into pieces_: the parts outside
  // [lo, hi) as they were, each part inside passed to `inside`, each gap between them inside to `gap` (which may
  // add a piece for it). Returns the index past the last segment cut; splice() then puts pieces_ in their place.
  template <typename Gap, typename Inside>
  size_t cut(const Segments& segs, size_t from, uint64_t lo, uint64_t hi, Gap&& gap, Inside&& inside);
  // Replaces segments [from, to) of `segs` by pieces_.
  void splice(Segments& segs, size_t from, size_t to);
  Segments& segments(uint32_t space) { return space < spaces_.size() ? spaces_[space] : new_space(space); }
  Segments& new_space(uint32_t space);

  // The last op of pipe `earlier` (by its seq) that pipe `later` is ordered after; ordered() asks it of one op.
  uint64_t ordered_through(Pipe earlier, Pipe later) const;
  bool ordered(Pipe earlier_pipe, uint64_t earlier_seq, Pipe later) const;
  void sweep();
  [[noreturn]] void race(const char* kind, const Op& op, Pipe pipe, const Op& other, Pipe other_pipe, uint32_t space,
                         uint64_t lo, uint64_t hi) const;

  std::array<Clock, kPipeSlots> clock_{};
  std::array<uint64_t, kPipeSlots> fence_{};  // per pipe: its ops up to here are complete (barrier / set_flag)
  // Pending set_flag clocks by (event, id): a kernel has a few in flight at a time, so a short list searched
  // from the end (the latest set is usually the next waited for) beats a map's nodes.
  using PendingFlags = std::vector<std::pair<int64_t, Clock>>;
  PendingFlags flags_;
  PendingFlags::iterator pending_flag(int64_t key);  // flags_.end(): none
  std::vector<Segments> spaces_;                     // by space (access()'s `space`)
  size_t segments_ = 0;                              // in all the spaces
  uint32_t memory_pipes_;
  size_t sweep_at_ = 64;                             // segments_ that triggers the next sweep()
  std::vector<std::pair<uint64_t, uint64_t>> gaps_;  // access()'s scratch
  Segments pieces_;                                  // cut()'s output
};

}  // namespace asc::sim
