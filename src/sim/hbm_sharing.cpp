#include "sim/hbm_sharing.h"

#include <algorithm>
#include <cmath>
#include <utility>

namespace asc::sim {

SharedHbmClock::SharedHbmClock(const std::vector<GmFlow>& flows, double hbm_bytes_per_cycle) {
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
    stretch_.push_back(std::max(1.0, demand / hbm_bytes_per_cycle));
  }
}

uint64_t SharedHbmClock::operator()(uint64_t cycle) const {
  auto next = std::upper_bound(at_.begin(), at_.end(), cycle);
  if (next == at_.begin()) return cycle;  // before the first transfer
  size_t i = static_cast<size_t>(next - at_.begin()) - 1;
  return static_cast<uint64_t>(std::ceil(shared_[i] + static_cast<double>(cycle - at_[i]) * stretch_[i]));
}

}  // namespace asc::sim
