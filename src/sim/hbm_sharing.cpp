#include "sim/hbm_sharing.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <utility>

namespace asc::sim {
namespace {

using Spans = std::map<uint32_t, std::vector<std::pair<uint64_t, uint64_t>>>;  // per GM argument

// The bytes the union of the spans covers.
double union_bytes(Spans& spans) {
  double bytes = 0;
  for (auto& [mem, list] : spans) {
    std::sort(list.begin(), list.end());
    uint64_t lo = list[0].first, hi = list[0].second;
    for (const auto& [a, b] : list) {
      if (a > hi) {
        bytes += static_cast<double>(hi - lo);
        lo = a;
      }
      hi = std::max(hi, b);
    }
    bytes += static_cast<double>(hi - lo);
  }
  return bytes;
}

// One class of accesses L2 gives room to in turn: their bytes and the spans they cover.
struct Claim {
  double bytes = 0;
  Spans spans;
};

// The order L2 gives its room in: reads before writes (the write-back holds what the reads leave), and within each,
// PERSISTENT before NORMAL before LAST; CACHE_MODE_DISABLE's accesses take none and come from / go to HBM.
constexpr size_t kReadClaims = 3, kClaims = kReadClaims + 2;
size_t claim_of(const GmSpan& s) {
  size_t rank = s.l2 == L2Policy::Persistent ? 0 : s.l2 == L2Policy::Normal ? 1 : 2;
  return s.write ? kReadClaims + (s.l2 == L2Policy::Last) : rank;
}

// HBM's bandwidth mixed with L2's by the share of the flows' bytes L2 serves: the re-reads of what the launch read
// before, and the writes, which L2 holds (write-back), each class in claim_of's order as far as the room left.
double effective_bandwidth(const std::vector<GmFlow>& flows, double hbm, double l2, double l2_bytes) {
  if (l2 <= 0 || l2_bytes <= 0) return hbm;
  double total = 0;
  std::array<Claim, kClaims> claims;
  for (const GmFlow& f : flows) {
    total += static_cast<double>(f.bytes);
    if (f.span.hi <= f.span.lo || f.span.l2 == L2Policy::Bypass) continue;
    Claim& c = claims[claim_of(f.span)];
    c.bytes += static_cast<double>(f.bytes);
    c.spans[f.span.mem].emplace_back(f.span.lo, f.span.hi);
  }
  double room = l2_bytes, from_l2 = 0;
  for (size_t i = 0; i < kClaims; ++i) {
    Claim& c = claims[i];
    double footprint = c.spans.empty() ? 0 : union_bytes(c.spans);
    if (footprint <= 0) continue;
    double share = std::min(1.0, room / footprint);
    // A read's first touch of each byte comes from HBM, its re-reads from L2; a held write goes to L2 only.
    from_l2 += (i < kReadClaims ? std::max(0.0, c.bytes - footprint) : c.bytes) * share;
    room = std::max(0.0, room - footprint);
  }
  if (total <= 0 || from_l2 <= 0) return hbm;
  return total / ((total - from_l2) / hbm + from_l2 / l2);
}

}  // namespace

SharedHbmClock::SharedHbmClock(const std::vector<GmFlow>& flows, double hbm_bytes_per_cycle, double l2_bytes_per_cycle,
                               double l2_bytes) {
  bytes_per_cycle_ = effective_bandwidth(flows, hbm_bytes_per_cycle, l2_bytes_per_cycle, l2_bytes);
  // The demand (bytes per cycle) changes where a flow starts or ends: sweep those points in order.
  std::vector<std::pair<uint64_t, double>> changes;
  changes.reserve(flows.size() * 2);
  for (const GmFlow& f : flows) {
    if (f.end <= f.start) continue;
    double rate = static_cast<double>(f.bytes) / static_cast<double>(f.end - f.start);
    changes.emplace_back(f.start, rate);
    changes.emplace_back(f.end, -rate);
  }
  std::sort(changes.begin(), changes.end());
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

uint64_t SharedHbmClock::operator()(uint64_t cycle) const {
  auto next = std::upper_bound(at_.begin(), at_.end(), cycle);
  if (next == at_.begin()) return cycle;  // before the first transfer
  size_t i = static_cast<size_t>(next - at_.begin()) - 1;
  return static_cast<uint64_t>(std::ceil(shared_[i] + static_cast<double>(cycle - at_[i]) * stretch_[i]));
}

}  // namespace asc::sim
