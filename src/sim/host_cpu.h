// What the host CPU offers the Model's hand-vectorised loops: each has a portable form and an AVX2 one, chosen at
// run time (the library is built for baseline x86-64).
#pragma once

#if defined(__x86_64__) && defined(__GNUC__)
#define ASC_SIM_AVX2 1  // the AVX2 variants are compiled (target attributes)
#else
#define ASC_SIM_AVX2 0
#endif

namespace asc::sim {

// Whether the host runs AVX2 (checked once).
inline bool host_has_avx2() {
#if ASC_SIM_AVX2
  static const bool yes = __builtin_cpu_supports("avx2");
  return yes;
#else
  return false;
#endif
}

}  // namespace asc::sim
