// A monotonic clock cheaper to read than std::chrono::steady_clock, for the timing a launch does on every call (the
// inline budget, a kernel's time per block, its time budget): a no-op launch read the clock three times, and
// clock_gettime took 30 ns a read on the development VM, the time-stamp counter 12.
//
// The counter is used where the operating system keeps its own time with it (Linux's clocksource is "tsc": the
// kernel found it invariant and synchronised across CPUs), so ticks read on different threads compare; elsewhere
// a tick is steady_clock's nanosecond. Tick counts convert to and from nanoseconds with a rate measured once,
// against steady_clock, the first time a conversion is needed.
#pragma once

#include <chrono>
#include <cstdint>

namespace asc::tick_clock {

using Ticks = uint64_t;

// Whether ticks are the time-stamp counter's (decided at the first read).
bool counter_is_the_clocksource();
inline bool counter() {
  static const bool yes = counter_is_the_clocksource();
  return yes;
}

inline Ticks now() {
#if defined(__x86_64__)
  if (counter()) return __builtin_ia32_rdtsc();  // (the builtin: no intrinsics header in every file of the Model)
#endif
  return static_cast<Ticks>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
          .count());
}

// Ticks in `ns` nanoseconds (saturating at the largest count) and nanoseconds in `ticks` ticks.
Ticks from_ns(uint64_t ns);
uint64_t to_ns(Ticks ticks);

}  // namespace asc::tick_clock
