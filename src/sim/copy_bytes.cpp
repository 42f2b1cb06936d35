#include "sim/copy_bytes.h"

#include <cstring>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define ASC_COPY_AVX2 1
#endif

namespace asc::sim {
namespace {

#if ASC_COPY_AVX2
constexpr size_t kLoopFrom = 4096;  // below this glibc's own path is fast

__attribute__((target("avx2"))) void copy_avx2(uint8_t* dst, const uint8_t* src, size_t n) {
  size_t k = 0;
  for (; k + 128 <= n; k += 128) {
    const __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + k));
    const __m256i b = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + k + 32));
    const __m256i c = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + k + 64));
    const __m256i d = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + k + 96));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + k), a);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + k + 32), b);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + k + 64), c);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + k + 96), d);
  }
  std::memcpy(dst + k, src + k, n - k);
}

bool has_avx2() {
  static const bool yes = __builtin_cpu_supports("avx2");
  return yes;
}
#endif

}  // namespace

void copy_bytes(uint8_t* dst, const uint8_t* src, size_t n) {
#if ASC_COPY_AVX2
  const bool apart = src + n <= dst || dst + n <= src;
  if (n >= kLoopFrom && apart && has_avx2()) {
    copy_avx2(dst, src, n);
    return;
  }
#endif
  std::memmove(dst, src, n);
}

}  // namespace asc::sim
