#include "sim/cross_core.h"

#include <algorithm>

#include "support/error.h"

namespace asc::sim {
namespace {

constexpr int64_t kMaxFlags = 16;  // flag ids 0..15 on Atlas A2
constexpr int64_t kMaxCount = 15;  // a flag counts up to 15 sets

// The counter keys: per-core flags (mode 2), barrier arrivals per kind (0), per group (1), all cores (sync_all).
enum CounterKind : int64_t { kPerCore, kAcrossKind, kInGroup, kSyncAll };

void check_args(const Op& op, int64_t mode, int64_t flag) {
  if (flag < 0 || flag >= kMaxFlags)
    fail(ASC_ERR_INVALID_ARGUMENT, op.loc, "{}: flag id {} is outside 0..{}", op.info().name, flag, kMaxFlags - 1);
  if (mode < 0 || mode > 2)
    fail(ASC_ERR_INVALID_ARGUMENT, op.loc,
         "{}: mode {} is not 0 (all cores of a kind), 1 (a group's vector cores) or "
         "2 (a group's cube and vector cores)",
         op.info().name, mode);
}

}  // namespace

CrossCore::CrossCore(const std::vector<CoreInstance>& cores) : cores_(cores), running_(cores.size()) {}

void CrossCore::set(const CoreInstance& self, int64_t mode, int64_t flag, const Op& op, uint64_t cycle) {
  check_args(op, mode, flag);
  std::lock_guard<std::mutex> lock(mu_);
  auto count = [&](const Key& key) {
    times_[key].push_back(cycle);
    return ++count_[key];
  };
  if (mode == 0) {
    count({kAcrossKind, static_cast<uint64_t>(self.kind), flag});
  } else if (mode == 1) {
    count({kInGroup, self.group, flag});
  } else {
    for (const CoreInstance& c : cores_)  // the other kind in the group
      if (c.group == self.group && c.kind != self.kind) {
        int64_t n = count({kPerCore, c.index, flag});
        ++sets_made_[{self.index, c.index, flag}];
        if (n > kMaxCount)
          fail(ASC_ERR_RUNTIME, op.loc, "cross_core_set_flag: flag {} of {} {} was set {} times without a wait", flag,
               core_kind_name(c.kind), c.block_idx, n);
      }
  }
  cv_.notify_all();
}

uint64_t CrossCore::latest(const Key& key, size_t count) {
  const std::vector<uint64_t>& times = times_[key];
  return count == 0 ? 0 : *std::max_element(times.begin(), times.begin() + static_cast<std::ptrdiff_t>(count));
}

uint64_t CrossCore::wait(const CoreInstance& self, int64_t mode, int64_t flag, const Op& op, const std::string& who) {
  check_args(op, mode, flag);
  std::unique_lock<std::mutex> lock(mu_);
  std::string what = fmt::format("cross_core_wait_flag(flag {}, mode {}) on {}", flag, mode, who);
  if (mode == 2) {
    int64_t need = 0;  // a vector core: the cube core's set; the cube core: every vector core's
    for (const CoreInstance& c : cores_) need += c.group == self.group && c.kind != self.kind;
    Key key{kPerCore, self.index, flag};
    int64_t& n = count_[key];
    block_until(
        lock, [&] { return n >= need; }, op, what);
    n -= need;
    ++waits_done_[{self.index, flag}];
    uint64_t at = latest(key, static_cast<size_t>(need));  // the sets this wait consumes
    auto& times = times_[key];
    times.erase(times.begin(), times.begin() + need);
    return at;
  }
  // modes 0 and 1: a barrier; its generation g needs every member's g-th set
  Key arrivals = mode == 0 ? Key{kAcrossKind, static_cast<uint64_t>(self.kind), flag} : Key{kInGroup, self.group, flag};
  int64_t members = 0;
  for (const CoreInstance& c : cores_)
    members += mode == 0 ? c.kind == self.kind : (c.group == self.group && c.kind == CoreKind::AIV);
  int64_t& generation = passed_[{mode, self.index, flag}];
  block_until(
      lock, [&] { return count_[arrivals] >= members * (generation + 1); }, op, what);
  ++generation;
  return latest(arrivals, static_cast<size_t>(members * generation));
}

uint64_t CrossCore::sync_all(const CoreInstance& self, bool aiv_only, const Op& op, const std::string& who,
                             uint64_t cycle) {
  std::unique_lock<std::mutex> lock(mu_);
  if (aiv_only && self.kind != CoreKind::AIV)
    fail(ASC_ERR_RUNTIME, op.loc, "sync_all(is_aiv_only=True) on {}: only vector cores take part", who);
  Key arrivals{kSyncAll, aiv_only, 0};
  int64_t members = 0;
  for (const CoreInstance& c : cores_) members += !aiv_only || c.kind == CoreKind::AIV;
  int64_t& generation = passed_[{3, self.index, aiv_only}];
  ++count_[arrivals];
  times_[arrivals].push_back(cycle);
  cv_.notify_all();
  block_until(
      lock, [&] { return count_[arrivals] >= members * (generation + 1); }, op, fmt::format("sync_all on {}", who));
  ++generation;
  return latest(arrivals, static_cast<size_t>(members * generation));
}

void CrossCore::gm_step(const Op& op, const std::string& what, const std::function<bool()>& ready,
                        const std::function<void(Publications&)>& step) {
  std::unique_lock<std::mutex> lock(mu_);
  block_until(lock, ready, op, what);
  step(published_);
  cv_.notify_all();
}

void CrossCore::deliver(const CoreInstance& from, CoreDelivery delivery) {
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& [key, n] : sets_made_)
    if (std::get<0>(key) == from.index && std::get<1>(key) == delivery.to) delivery.sets[std::get<2>(key)] = n;
  for (const auto& [key, n] : waits_done_)
    if (key.first == from.index) delivery.waits[key.second] = n;
  deliveries_.push_back(std::move(delivery));
}

std::vector<CoreDelivery> CrossCore::take_deliveries(const CoreInstance& self, bool all) {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<CoreDelivery> out;
  auto visible = [&](const CoreDelivery& d) {
    if (all) return true;
    for (const auto& [key, n] : waits_done_) {
      if (key.first != self.index) continue;
      auto it = d.sets.find(key.second);
      if (n > (it == d.sets.end() ? 0 : it->second)) return true;
    }
    return false;
  };
  for (auto it = deliveries_.begin(); it != deliveries_.end();) {
    if (it->to == self.index && visible(*it)) {
      out.push_back(std::move(*it));
      it = deliveries_.erase(it);
    } else {
      ++it;
    }
  }
  return out;
}

int64_t CrossCore::next_round(uint32_t core, int64_t kind) {
  std::lock_guard<std::mutex> lock(mu_);
  return rounds_[{core, kind}]++;
}

void CrossCore::block_until(std::unique_lock<std::mutex>& lock, const std::function<bool()>& ready, const Op& op,
                            const std::string& what) {
  while (!ready()) {
    if (aborted_)
      fail(deadlocked_ ? ASC_ERR_DEADLOCK : ASC_ERR_RUNTIME, op.loc,
           deadlocked_ ? "deadlock: {} can never complete: every core still running is waiting too" : "{} {}", what,
           kAbandoned);
    --running_;
    waiters_.push_back(&ready);
    if (nobody_can_proceed()) {  // nobody is left to set anything
      deadlocked_ = aborted_ = true;
      cv_.notify_all();
    } else {
      cv_.wait(lock);
    }
    waiters_.erase(std::find(waiters_.begin(), waiters_.end(), &ready));
    ++running_;
  }
}

// A woken core whose wait is satisfied has not run yet but will: only when
// no core runs and no wait is satisfied is it a deadlock.
bool CrossCore::nobody_can_proceed() const {
  if (running_ > 0) return false;
  for (const auto* ready : waiters_)
    if ((*ready)()) return false;
  return true;
}

void CrossCore::finished() {
  std::lock_guard<std::mutex> lock(mu_);
  --running_;
  ++ended_;
  // a core that failed aborted the launch first: the others' waits were abandoned, not deadlocked
  if (!aborted_ && !waiters_.empty() && nobody_can_proceed()) deadlocked_ = aborted_ = true;
  cv_.notify_all();
}

void CrossCore::finish_and_wait_for_all() {
  finished();
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait(lock, [&] { return ended_ == cores_.size(); });
}

void CrossCore::abort() {
  std::lock_guard<std::mutex> lock(mu_);
  aborted_ = true;
  cv_.notify_all();
}

}  // namespace asc::sim

#include "sim/handlers.h"

namespace asc::sim {

// The set happens when its pipe runs it; a wait holds this core's scalar unit
// until the cycle the sets it needed happened at (sync_all: the last arrival).
// A wait also takes in what the other cores of the group wrote into this core's memory (the cube core's fixpipe
// L0C -> UB, a vector core's UB -> L1) before the set it consumed.
void exec_CrossCoreSetFlag(Block& b, const Op& op, const RtValue* in, RtValue*) {
  b.cross().set(b.core(), op.attr_int(0), in[0].i, op, b.pipe_op_start());
  if (op.attr_int(0) == 2) b.note_cross_set(in[0].i);
}

void exec_CrossCoreWaitFlag(Block& b, const Op& op, const RtValue* in, RtValue*) {
  b.drain_pipes();
  b.wait_until(b.cross().wait(b.core(), op.attr_int(0), in[0].i, op, b.label()));
  b.receive(b.cross().take_deliveries(b.core(), false), true);
}

void exec_SyncAll(Block& b, const Op& op, const RtValue*, RtValue*) {
  b.drain_pipes();
  b.wait_until(b.cross().sync_all(b.core(), op.attr_int(0) != 0, op, b.label(), b.pipes_done()));
  b.passed_sync_all();  // GM accesses from here on are ordered after every core's before it
  // every core's writes into another's memory before the barrier have arrived
  if (op.attr_int(0) == 0) b.receive(b.cross().take_deliveries(b.core(), true), true);
}

}  // namespace asc::sim
