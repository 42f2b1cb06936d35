#include "sim/bank_conflicts.h"

#include <algorithm>
#include <array>

namespace asc::sim {
namespace {
constexpr int64_t kGroups = 16;
constexpr size_t kMaxPatterns = 8;  // operands a memo key holds (a vector instruction has at most 5 memory effects)

// block mod 16, negative blocks included (two's complement)
int64_t group_of(int64_t block) { return block & (kGroups - 1); }

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

// What the beats of an instruction's repeats depend on: each operand's blocks mod 16 and the first 16 repeats.
struct BeatsKey {
  std::array<BlockPattern, kMaxPatterns> operands{};
  size_t count = 0;
  int64_t period = 0, tail = 0;

  bool operator==(const BeatsKey& o) const {
    if (count != o.count || period != o.period || tail != o.tail) return false;
    for (size_t i = 0; i < count; ++i) {
      const BlockPattern &a = operands[i], &b = o.operands[i];
      if (a.first != b.first || a.blk != b.blk || a.rep != b.rep || a.per_repeat != b.per_repeat || a.write != b.write)
        return false;
    }
    return true;
  }
};

// The beats of the first `period` repeats (`cycle`) and of the first `tail` of them (`head`).
struct PeriodBeats {
  uint64_t cycle = 0, head = 0;
};
PeriodBeats period_beats(const BlockPattern* operands, size_t count, int64_t period, int64_t tail) {
  PeriodBeats b;
  for (int64_t r = 0; r < period; ++r) {
    uint64_t beats = beats_of(operands, count, r);
    b.cycle += beats;
    if (r < tail) b.head += beats;
  }
  return b;
}

// The last instruction's key and its beats: a kernel's loop issues the same shapes again and again, and recounting
// 16 repeats' blocks cost more than running the instruction's arithmetic. (The empty key, period 0, matches no
// instruction.)
struct BeatsMemo {
  BeatsKey key;
  PeriodBeats beats;
};
thread_local BeatsMemo memo;
}  // namespace

uint64_t vector_beats(const BlockPattern* operands, size_t count, int64_t repeats) {
  if (repeats <= 0) return 0;
  // The groups repeat every 16 repeats (r * rep mod 16), so 16 of them tell every repeat's beats.
  int64_t period = std::min(repeats, kGroups);
  int64_t tail = repeats % kGroups;
  PeriodBeats b;
  if (count > kMaxPatterns) {
    b = period_beats(operands, count, period, tail);
  } else {
    BeatsKey key;
    key.count = count;
    key.period = period;
    key.tail = tail;
    for (size_t i = 0; i < count; ++i) {
      const BlockPattern& p = operands[i];
      key.operands[i] = {group_of(p.first), group_of(p.blk), group_of(p.rep), p.per_repeat, p.write};
    }
    BeatsMemo& m = memo;
    if (!(m.key == key)) m = {key, period_beats(key.operands.data(), count, period, tail)};
    b = m.beats;
  }
  if (repeats <= kGroups) return b.cycle;
  return static_cast<uint64_t>(repeats / kGroups) * b.cycle + b.head;
}

}  // namespace asc::sim
