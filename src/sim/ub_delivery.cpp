// The vector core's side of Ascend 950's fixpipe L0C -> UB. The cube core's fixpipe hands each vector core its
// bytes through the CrossCore (under its lock); the vector core copies them into its own Unified Buffer at the
// cross-core wait that makes them visible, on its own thread, so no host thread writes another core's memory and
// the bytes appear at a point a correctly synchronised kernel cannot tell from the board's (any time between the
// fixpipe and that wait). The race checker sees the write as an op on the FIX pipe (one a vector core never runs)
// ordered after what this core published with the mode-2 sets the cube core had waited for: a read of the bytes
// between those sets and the wait, or one the kernel never waits for at all (checked when the core ends), is
// reported as a race between the cores.
#include <algorithm>
#include <cstring>

#include "sim/block.h"

namespace asc::sim {

void Block::note_cross_set(int64_t flag) {
  if (race_) cross_set_clocks_[flag].push_back(race_->clock(running_pipe_));
}

void Block::receive_ub(std::vector<UbDelivery> deliveries, bool release) {
  uint8_t* ub = local_[static_cast<size_t>(Memory::UB)];
  for (const UbDelivery& d : deliveries) {
    const uint8_t* from = d.data.data();
    for (auto [lo, hi] : d.runs) {  // bounds checked by the cube core against the Unified Buffer's size
      std::memcpy(ub + lo, from, hi - lo);
      from += hi - lo;
    }
    if (!race_) continue;
    // The cube core's n-th completed wait of a flag consumed this core's n-th set of it (one set per wait).
    RaceChecker::Clock known{};
    for (auto [flag, n] : d.waits) {
      auto it = cross_set_clocks_.find(flag);
      if (n <= 0 || it == cross_set_clocks_.end() || it->second.empty()) continue;
      const RaceChecker::Clock& c = it->second[std::min<size_t>(static_cast<size_t>(n), it->second.size()) - 1];
      for (size_t p = 0; p < kPipeSlots; ++p) known[p] = std::max(known[p], c[p]);
    }
    race_->foreign_write(*d.op, Pipe::FIX, known, d.runs, release);
  }
}

}  // namespace asc::sim
