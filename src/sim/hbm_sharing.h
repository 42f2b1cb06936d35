// HBM shared in time by every core of a launch. Each block's timeline moves its GM copies at its engines' peak;
// where the copies of all the blocks running at once would together move more bytes than HBM can, the launch's
// clock runs slower over that stretch, so that it lasts as long as HBM needs for them. Every stretch then moves at
// most HBM's bandwidth, and so does the launch: no estimate beats the bound (it holds by construction, not by a
// share fixed up front). What ran beside the copies in a stretched stretch is slowed with them, which errs on the
// slow side.
//
// L2: the SoC's L2 cache sits between the cores and HBM. A launch's GM reads that read again what it read before
// (the launch's read footprint, the union of its reads' spans, fits in L2 or, when it does not, the share of
// that footprint L2 holds) come from L2 at its bandwidth, the rest from HBM. The clock above then shares the
// launch's effective bandwidth, T / (from_hbm / HBM + from_l2 / L2) for its T bytes, instead of HBM's: a
// launch-wide mix rather than a cache simulated line by line, so it errs slow on reuse within the time window and
// fast for re-reads long after eviction. Every byte is still read from HBM at least once. L2 is write-back: the
// launch's writes stay in it, not in HBM, as far as the room its cached reads' footprint leaves (all of them when the
// two fit; none when the reads alone fill L2), and so are served at L2's bandwidth too.
// set_l2_cache_hint's modes, for the accesses its CacheRwMode names: CACHE_MODE_DISABLE's reads and writes bypass
// L2 (HBM only, taking none of its room: Ascend C's best practice "设置合理的L2 CacheMode" for data accessed once);
// PERSISTENT's footprint gets room before NORMAL's, LAST's after it (the modes' names in Ascend C's CacheMode; their
// exact replacement policy is not published, so this priority order is the estimate).
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <utility>
#include <vector>

#include "sim/timing.h"

namespace asc::sim {

// One block's demand on HBM, prepared on the block's own thread so that the launch's serial tail merges the blocks'
// sorted parts instead of sorting them all: its flows' demand changes in time order, and per L2 claim (a class of
// accesses L2 gives room to in turn) the bytes and the union of the spans, per GM argument.
struct HbmDemand {
  using Intervals = std::vector<std::pair<uint64_t, uint64_t>>;  // sorted, disjoint, not touching
  static constexpr size_t kClaims = 5;                           // hbm_sharing.cpp's claim_of

  HbmDemand() = default;
  explicit HbmDemand(const std::vector<GmFlow>& flows);

  std::vector<std::pair<uint64_t, double>> changes;  // (cycle, change of bytes per cycle), sorted
  double total = 0;                                  // the bytes of every flow
  std::array<double, kClaims> claim_bytes{};
  // By claim (kClaims of them, or none when there are no flows: a launch keeps a demand per block, most of
  // small launches' blocks copy nothing, and five maps each were a good part of making and dropping them).
  std::vector<std::map<uint32_t, Intervals>> claim_spans;
};

class SharedHbmClock {
 public:
  // `flows`: every block's GM transfers on the launch's clock (each block's start added).
  SharedHbmClock(const std::vector<GmFlow>& flows, double hbm_bytes_per_cycle, double l2_bytes_per_cycle = 0,
                 double l2_bytes = 0);
  // The same from each block's demand and the cycle the block starts at on the launch's clock.
  SharedHbmClock(const std::vector<HbmDemand>& blocks, const std::vector<uint64_t>& start, double hbm_bytes_per_cycle,
                 double l2_bytes_per_cycle, double l2_bytes);
  // The bandwidth the flows are shared at (bytes per cycle): HBM's, raised by the L2 re-reads.
  double bytes_per_cycle() const { return bytes_per_cycle_; }
  // A cycle of the launch, as the blocks' own timelines count it, on the shared clock.
  uint64_t operator()(uint64_t cycle) const;
  // How many cycles longer [from, to) of the blocks' clock lasts on the shared one.
  uint64_t stretch(uint64_t from, uint64_t to) const { return (*this)(to) - (*this)(from) - (to - from); }
  // The same two, for calls in about increasing order (a block's copies, one after another, in the launch's serial
  // tail): the search starts from `hint`, where the last call found its point (updated), and takes a few steps
  // where a binary search of all the points took log2 of their number, most of them cache misses.
  uint64_t operator()(uint64_t cycle, size_t& hint) const;
  uint64_t stretch(uint64_t from, uint64_t to, size_t& hint) const {
    return (*this)(to, hint) - (*this)(from, hint) - (to - from);
  }

 private:
  uint64_t shared_at(size_t i, uint64_t cycle) const;  // `cycle` on the shared clock, in point i's stretch

  std::vector<uint64_t> at_;     // where the demand on HBM changes, on the blocks' clock
  std::vector<double> shared_;   // the same points on the shared clock
  std::vector<double> stretch_;  // shared cycles per cycle from each point to the next (>= 1)
  double bytes_per_cycle_ = 0;
};

}  // namespace asc::sim
