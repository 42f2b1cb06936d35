#include "support/tick_clock.h"

#include <cmath>
#include <fstream>
#include <limits>
#include <string>

namespace asc::tick_clock {

// (ASC_STEADY_TICKS: a build whose ticks are steady_clock's everywhere, for profiling under valgrind with a slowed
// clock_gettime, which keeps the blocks of a launch on its thread as they run natively.)
bool counter_is_the_clocksource() {
#if defined(__x86_64__) && defined(__linux__) && !defined(ASC_STEADY_TICKS)
  std::ifstream in("/sys/devices/system/clocksource/clocksource0/current_clocksource");
  std::string source;
  return static_cast<bool>(in >> source) && source == "tsc";
#else
  return false;
#endif
}

namespace {

// Ticks per nanosecond: 1 without the counter; with it, the counter's advance over at least 200 us of steady_clock
// (measured once: the reads at both ends are a few ns, so the rate is within 0.1%).
double ticks_per_ns() {
  static const double rate = [] {
    if (!counter()) return 1.0;
    using Clock = std::chrono::steady_clock;
    const Clock::time_point t0 = Clock::now();
    const Ticks c0 = now();
    Clock::time_point t1 = t0;
    while (t1 - t0 < std::chrono::microseconds(200)) t1 = Clock::now();
    const Ticks c1 = now();
    const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(t1 - t0).count();
    return c1 > c0 ? static_cast<double>(c1 - c0) / static_cast<double>(ns) : 1.0;
  }();
  return rate;
}

}  // namespace

Ticks from_ns(uint64_t ns) {
  const double ticks = static_cast<double>(ns) * ticks_per_ns();
  return ticks >= static_cast<double>(std::numeric_limits<Ticks>::max()) ? std::numeric_limits<Ticks>::max()
                                                                         : static_cast<Ticks>(ticks);
}

uint64_t to_ns(Ticks ticks) { return static_cast<uint64_t>(std::llround(static_cast<double>(ticks) / ticks_per_ns())); }

}  // namespace asc::tick_clock
