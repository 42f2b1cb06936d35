#include "sim/hbm_sharing.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <utility>

namespace asc::sim {
namespace {

using Change = std::pair<uint64_t, double>;  // a cycle, and how the demand on HBM (bytes per cycle) changes there
using Intervals = std::vector<std::pair<uint64_t, uint64_t>>;

// Sorts `list` and merges its overlapping or touching intervals, in place.
void merge_intervals(Intervals& list) {
  std::sort(list.begin(), list.end());
  size_t kept = 0;
  for (size_t i = 0; i < list.size(); ++i) {
    if (kept > 0 && list[i].first <= list[kept - 1].second)
      list[kept - 1].second = std::max(list[kept - 1].second, list[i].second);
    else
      list[kept++] = list[i];
  }
  list.resize(kept);
}

// The order L2 gives its room in: reads before writes (the write-back holds what the reads leave), and within each,
// PERSISTENT before NORMAL before LAST; CACHE_MODE_DISABLE's accesses take none and come from / go to HBM.
constexpr size_t kReadClaims = 3;
size_t claim_of(const GmSpan& s) {
  size_t rank = s.l2 == L2Policy::Persistent ? 0 : s.l2 == L2Policy::Normal ? 1 : 2;
  return s.write ? kReadClaims + (s.l2 == L2Policy::Last) : rank;
}

// HBM's bandwidth mixed with L2's by the share of the flows' bytes L2 serves: the re-reads of what the launch read
// before, and the writes, which L2 holds (write-back), each claim in claim_of's order as far as the room left.
// (Byte counts are whole numbers well inside a double's 53 bits: their sums are exact in any order.)
double effective_bandwidth(const std::vector<HbmDemand>& blocks, double hbm, double l2, double l2_bytes) {
  if (l2 <= 0 || l2_bytes <= 0) return hbm;
  double total = 0, room = l2_bytes, from_l2 = 0;
  for (const HbmDemand& b : blocks) total += b.total;
  if (total <= 0) return hbm;  // no copies (a launch of small blocks): no L2 share to find
  for (size_t i = 0; i < HbmDemand::kClaims; ++i) {
    double bytes = 0, footprint = 0;
    std::map<uint32_t, Intervals> spans;  // the launch's union, per GM argument
    for (const HbmDemand& b : blocks) {
      bytes += b.claim_bytes[i];
      if (b.claim_spans.empty()) continue;
      for (const auto& [mem, list] : b.claim_spans[i]) spans[mem].insert(spans[mem].end(), list.begin(), list.end());
    }
    for (auto& [mem, list] : spans) {
      merge_intervals(list);
      for (const auto& [lo, hi] : list) footprint += static_cast<double>(hi - lo);
    }
    if (footprint <= 0) continue;
    double share = std::min(1.0, room / footprint);
    // A read's first touch of each byte comes from HBM, its re-reads from L2; a held write goes to L2 only.
    from_l2 += (i < kReadClaims ? std::max(0.0, bytes - footprint) : bytes) * share;
    room = std::max(0.0, room - footprint);
  }
  if (total <= 0 || from_l2 <= 0) return hbm;
  return total / ((total - from_l2) / hbm + from_l2 / l2);
}

// The blocks' sorted changes, each shifted by its block's start, as one sorted list: neighbouring runs merged
// pairwise, log2(blocks) passes. A sort of them all gives the same list (equal pairs are interchangeable), and so
// the same sums.
std::vector<Change> merged_changes(const std::vector<HbmDemand>& blocks, const std::vector<uint64_t>& start) {
  std::vector<Change> all;
  size_t count = 0;
  for (const HbmDemand& b : blocks) count += b.changes.size();
  if (count == 0) return all;  // no copies: a clock that runs as the blocks' own
  std::vector<size_t> bounds{0};
  all.reserve(count);
  for (size_t b = 0; b < blocks.size(); ++b) {
    for (const Change& c : blocks[b].changes) all.emplace_back(c.first + start[b], c.second);
    bounds.push_back(all.size());
  }
  std::vector<Change> merged(all.size());
  while (bounds.size() > 2) {
    std::vector<size_t> next{0};
    for (size_t r = 0; r + 1 < bounds.size(); r += 2) {
      const size_t lo = bounds[r], mid = bounds[r + 1], hi = r + 2 < bounds.size() ? bounds[r + 2] : mid;
      std::merge(all.begin() + lo, all.begin() + mid, all.begin() + mid, all.begin() + hi, merged.begin() + lo);
      next.push_back(hi);
    }
    all.swap(merged);
    bounds = std::move(next);
  }
  return all;
}

}  // namespace

HbmDemand::HbmDemand(const std::vector<GmFlow>& flows) : claim_spans(kClaims) {
  changes.reserve(flows.size() * 2);
  for (const GmFlow& f : flows) {
    total += static_cast<double>(f.bytes);
    if (f.end > f.start) {  // the demand changes where a flow starts or ends
      double rate = static_cast<double>(f.bytes) / static_cast<double>(f.end - f.start);
      changes.emplace_back(f.start, rate);
      changes.emplace_back(f.end, -rate);
    }
    if (f.span.hi <= f.span.lo || f.span.l2 == L2Policy::Bypass) continue;
    const size_t claim = claim_of(f.span);
    claim_bytes[claim] += static_cast<double>(f.bytes);
    claim_spans[claim][f.span.mem].emplace_back(f.span.lo, f.span.hi);
  }
  std::sort(changes.begin(), changes.end());
  for (auto& spans : claim_spans)
    for (auto& [mem, list] : spans) merge_intervals(list);
}

SharedHbmClock::SharedHbmClock(const std::vector<GmFlow>& flows, double hbm_bytes_per_cycle, double l2_bytes_per_cycle,
                               double l2_bytes)
    : SharedHbmClock(std::vector<HbmDemand>(1, HbmDemand(flows)), std::vector<uint64_t>(1, 0), hbm_bytes_per_cycle,
                     l2_bytes_per_cycle, l2_bytes) {}

SharedHbmClock::SharedHbmClock(const std::vector<HbmDemand>& blocks, const std::vector<uint64_t>& start,
                               double hbm_bytes_per_cycle, double l2_bytes_per_cycle, double l2_bytes) {
  bytes_per_cycle_ = effective_bandwidth(blocks, hbm_bytes_per_cycle, l2_bytes_per_cycle, l2_bytes);
  // Sweep the points where the demand changes, in order.
  const std::vector<Change> changes = merged_changes(blocks, start);
  at_.reserve(changes.size());
  shared_.reserve(changes.size());
  stretch_.reserve(changes.size());
  double demand = 0, shared = 0;
  for (size_t i = 0; i < changes.size();) {
    uint64_t t = changes[i].first;
    if (!at_.empty())
      shared += static_cast<double>(t - at_.back()) * stretch_.back();
    else
      shared = static_cast<double>(t);
    while (i < changes.size() && changes[i].first == t) demand += changes[i++].second;
    demand = std::max(demand, 0.0);  // rounding, once every flow has ended
    at_.push_back(t);
    shared_.push_back(shared);
    stretch_.push_back(std::max(1.0, demand / bytes_per_cycle_));
  }
}

uint64_t SharedHbmClock::shared_at(size_t i, uint64_t cycle) const {
  return static_cast<uint64_t>(std::ceil(shared_[i] + static_cast<double>(cycle - at_[i]) * stretch_[i]));
}

uint64_t SharedHbmClock::operator()(uint64_t cycle) const {
  auto next = std::upper_bound(at_.begin(), at_.end(), cycle);
  if (next == at_.begin()) return cycle;  // before the first transfer
  return shared_at(static_cast<size_t>(next - at_.begin()) - 1, cycle);
}

uint64_t SharedHbmClock::operator()(uint64_t cycle, size_t& hint) const {
  const size_t n = at_.size();
  if (n == 0 || cycle < at_[0]) return cycle;  // before the first transfer
  // The last point at or before `cycle`, in [lo, hi): galloping from the hint, forward or back, then bisecting.
  size_t lo = std::min(hint, n - 1), hi = lo + 1;
  if (at_[lo] <= cycle) {
    for (size_t step = 1; hi < n && at_[hi] <= cycle; step *= 2) {
      lo = hi;
      hi = std::min(n, lo + step);
    }
  } else {
    for (size_t step = 1; at_[lo] > cycle; step *= 2) {  // (at_[0] <= cycle ends it)
      hi = lo;
      lo = lo > step ? lo - step : 0;
    }
  }
  hint = static_cast<size_t>(std::upper_bound(at_.begin() + static_cast<std::ptrdiff_t>(lo),
                                              at_.begin() + static_cast<std::ptrdiff_t>(hi), cycle) -
                             at_.begin()) -
         1;
  return shared_at(hint, cycle);
}

}  // namespace asc::sim
