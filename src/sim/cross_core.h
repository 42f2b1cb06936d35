// Synchronisation between the cores of a launch: cross_core_set_flag /
// cross_core_wait_flag (Atlas A2 modes 0, 1 and 2) and sync_all. A launch
// that uses them runs every core on a thread of its own; a wait blocks its
// core's thread until the flag is set. When every core still running is
// waiting, nothing can set a flag any more: that is a deadlock, reported on
// each waiting core, so a launch never hangs. Each set and arrival carries
// the cycle it happened at on its core; a wait returns the cycle it is
// satisfied at (the latest of the sets it consumes), which the waiting core's
// timeline moves up to. The GM-workspace protocols (ib_set / ib_wait,
// notify_next_block / wait_pre_block, the software sync_all) wait on the
// workspace's bytes under the same lock, so their deadlocks are found too.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "target/cores.h"
#include "target/platform.h"

namespace asc::sim {

// What one core of a group wrote into another's memory (Ascend 950): a cube core's fixpipe L0C -> UB into a vector
// core's Unified Buffer, or a vector core's UB -> L1 copy into its cube core's L1. The bytes travel through the
// CrossCore, under its lock: the receiver copies them into its own memory when a cross-core wait makes them
// visible (core_delivery.cpp), so no host thread ever touches another core's memory.
struct CoreDelivery {
  size_t to = 0;                                    // the receiving core's place in the launch
  Memory memory = Memory::UB;                       // the receiver's memory written
  Pipe pipe = Pipe::FIX;                            // the sender's pipe that wrote it (one the receiver does not run)
  std::vector<std::pair<uint64_t, uint64_t>> runs;  // byte ranges [lo, hi) written, in address order
  std::vector<uint8_t> data;                        // their bytes, one run after another
  const Op* op = nullptr;
  std::map<int64_t, int64_t> sets;   // per flag id: mode-2 sets the sender had made to `to` before it
  std::map<int64_t, int64_t> waits;  // per flag id: mode-2 waits the sender had completed before it
};

class CrossCore {
 public:
  static constexpr const char* kAbandoned = "was abandoned: another core failed";
  explicit CrossCore(const std::vector<CoreInstance>& cores);
  // mode 0: every core of the setter's kind; 1: the two vector cores of a
  // group; 2: a group's cube core and its vector cores (a cube core's set
  // releases both vector cores, a cube core's wait needs both to set).
  void set(const CoreInstance& self, int64_t mode, int64_t flag, const Op& op, uint64_t cycle);
  uint64_t wait(const CoreInstance& self, int64_t mode, int64_t flag, const Op& op, const std::string& who);
  // Every vector core (aiv_only) or every core reaches it before any goes on.
  uint64_t sync_all(const CoreInstance& self, bool aiv_only, const Op& op, const std::string& who, uint64_t cycle);
  // What a core published when it wrote a workspace slot: its happens-before clock and the cycle it wrote at.
  struct Publication {
    std::vector<uint32_t> clock;
    uint64_t cycle = 0;
  };
  using Publications = std::map<std::pair<uint64_t, int64_t>, Publication>;  // (slot address, count) -> it
  // One step of a GM-workspace protocol, atomic with every other core's: waits until ready() (which reads the
  // workspace) holds, then runs step() (which may write the workspace and the publications), and wakes the others.
  void gm_step(const Op& op, const std::string& what, const std::function<bool()>& ready,
               const std::function<void(Publications&)>& step);
  // How many times core `core` made call `kind` before (wait_pre_block's and the software sync_all's rounds).
  int64_t next_round(uint32_t core, int64_t kind);
  size_t core_count() const { return cores_.size(); }
  const std::vector<CoreInstance>& cores() const { return cores_; }
  // A write into another core's memory of the group: stamped with the sender's mode-2 flag counts.
  void deliver(const CoreInstance& from, CoreDelivery delivery);
  // The deliveries to `self` a mode-2 wait it completed made visible (a wait that consumed a set the sender made
  // after the write), or, with `all`, every one posted so far; in the order they were posted.
  std::vector<CoreDelivery> take_deliveries(const CoreInstance& self, bool all);
  void finished();  // the calling core's run ended (normally or not)
  // finished(), then back once every core's run has ended: no other core writes into this one's memory any more.
  void finish_and_wait_for_all();
  void abort();  // a core failed: wake every waiting core

 private:
  void block_until(std::unique_lock<std::mutex>& lock, const std::function<bool()>& ready, const Op& op,
                   const std::string& what);
  using Key = std::tuple<int64_t, uint64_t, int64_t>;  // (kind of counter, owner, flag)

  const std::vector<CoreInstance>& cores_;
  std::mutex mu_;
  std::condition_variable cv_;
  size_t running_;                                     // cores neither finished nor waiting
  size_t ended_ = 0;                                   // cores finished
  std::vector<const std::function<bool()>*> waiters_;  // what each waiting core waits for
  bool nobody_can_proceed() const;                     // every core is waiting and no wait is satisfied
  bool aborted_ = false, deadlocked_ = false;
  std::map<Key, int64_t> count_;  // flags set (mode 2) or arrivals (modes 0 and 1, sync_all)
  // The cycles of those sets (mode 2: the ones not yet consumed, oldest first) and arrivals (all, in order).
  std::map<Key, std::vector<uint64_t>> times_;
  uint64_t latest(const Key& key, size_t count);  // the latest of the first `count` times
  std::map<Key, int64_t> passed_;                 // barrier generations each core has passed
  Publications published_;
  // Cumulative mode-2 flag counts: sets per (setter, receiver, flag id), waits per (core index, flag id).
  std::map<std::tuple<size_t, size_t, int64_t>, int64_t> sets_made_;
  std::map<std::pair<size_t, int64_t>, int64_t> waits_done_;
  std::vector<CoreDelivery> deliveries_;
  std::map<std::pair<uint32_t, int64_t>, int64_t> rounds_;
};

}  // namespace asc::sim
