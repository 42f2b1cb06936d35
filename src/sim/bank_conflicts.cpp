#include "sim/bank_conflicts.h"

#include <algorithm>
#include <array>

namespace asc::sim {
namespace {
constexpr int64_t kGroups = 16;

int64_t group_of(int64_t block) { return ((block % kGroups) + kGroups) % kGroups; }

// The beats of repeat r: the most reads, or the most writes, any one group serves.
uint64_t beats_of(const BlockPattern* operands, size_t count, int64_t r) {
  std::array<int, kGroups> reads{}, writes{};
  for (size_t i = 0; i < count; ++i) {
    const BlockPattern& p = operands[i];
    auto& served = p.write ? writes : reads;
    for (int64_t j = 0; j < p.per_repeat; ++j) ++served[group_of(p.first + r * p.rep + j * p.blk)];
  }
  int most = 1;
  for (int64_t g = 0; g < kGroups; ++g) most = std::max({most, reads[g], writes[g]});
  return static_cast<uint64_t>(most);
}
}  // namespace

uint64_t vector_beats(const BlockPattern* operands, size_t count, int64_t repeats) {
  if (repeats <= 0) return 0;
  // The groups repeat every 16 repeats (r * rep mod 16), so 16 of them tell every repeat's beats.
  int64_t period = std::min(repeats, kGroups);
  uint64_t cycle = 0, head = 0;
  int64_t tail = repeats % kGroups;
  for (int64_t r = 0; r < period; ++r) {
    uint64_t b = beats_of(operands, count, r);
    cycle += b;
    if (r < tail) head += b;
  }
  if (repeats <= kGroups) return cycle;
  return static_cast<uint64_t>(repeats / kGroups) * cycle + head;
}

}  // namespace asc::sim
