#include "sim/copy_bytes.h"

#include <cstring>

#include "sim/gm_checksum.h"
#include "sim/host_cpu.h"

#if ASC_SIM_AVX2
#include <immintrin.h>
#endif

namespace asc::sim {
namespace {

#if ASC_SIM_AVX2
constexpr size_t kLoopFrom = 4096;  // below this glibc's own path is fast

// Streaming stores need aligned destinations: 16 bytes for the two halves of a 32-byte word, as numpy's large
// buffers are (glibc's mmap chunks start 16 bytes into a page) and tiled offsets into them.
bool streams(const uint8_t* dst, Store store) {
  return store == Store::Streaming && reinterpret_cast<uintptr_t>(dst) % 16 == 0;
}

template <bool kStream>
__attribute__((target("avx2"))) inline void store32(uint8_t* dst, __m256i v) {
  if constexpr (kStream) {
    _mm_stream_si128(reinterpret_cast<__m128i*>(dst), _mm256_castsi256_si128(v));
    _mm_stream_si128(reinterpret_cast<__m128i*>(dst + 16), _mm256_extracti128_si256(v, 1));
  } else {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst), v);
  }
}

template <bool kStream>
__attribute__((target("avx2"))) void copy_avx2(uint8_t* dst, const uint8_t* src, size_t n) {
  size_t k = 0;
  for (; k + 128 <= n; k += 128) {
    const __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + k));
    const __m256i b = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + k + 32));
    const __m256i c = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + k + 64));
    const __m256i d = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + k + 96));
    store32<kStream>(dst + k, a);
    store32<kStream>(dst + k + 32, b);
    store32<kStream>(dst + k + 64, c);
    store32<kStream>(dst + k + 96, d);
  }
  if constexpr (kStream) _mm_sfence();  // streaming stores are weakly ordered: publish them before the launch ends
  std::memcpy(dst + k, src + k, n - k);
}

// ChecksumLanes::add on four 64-bit lanes at once (the same sums, so the same checksum).
template <bool kStream>
__attribute__((target("avx2"))) uint64_t copy_checksummed_avx2(uint8_t* dst, const uint8_t* src, uint64_t n) {
  ChecksumLanes lanes;
  __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(lanes.a));
  __m256i b = _mm256_setzero_si256();
  uint64_t k = 0;
  for (; k + 32 <= n; k += 32) {
    const __m256i w = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + k));
    store32<kStream>(dst + k, w);
    a = _mm256_add_epi64(a, w);
    b = _mm256_add_epi64(b, a);
  }
  if constexpr (kStream) _mm_sfence();
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(lanes.a), a);
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(lanes.b), b);
  std::memcpy(dst + k, src + k, n - k);
  return lanes.finish(src, k, n);
}
#endif

}  // namespace

void copy_bytes(uint8_t* dst, const uint8_t* src, size_t n, Store store) {
#if ASC_SIM_AVX2
  const bool apart = src + n <= dst || dst + n <= src;
  if (n >= kLoopFrom && apart && host_has_avx2()) {
    streams(dst, store) ? copy_avx2<true>(dst, src, n) : copy_avx2<false>(dst, src, n);
    return;
  }
#endif
  (void)store;
  std::memmove(dst, src, n);
}

uint64_t copy_checksummed(uint8_t* dst, const uint8_t* src, uint64_t n, Store store) {
#if ASC_SIM_AVX2
  if (n >= kLoopFrom && host_has_avx2())
    return streams(dst, store) ? copy_checksummed_avx2<true>(dst, src, n) : copy_checksummed_avx2<false>(dst, src, n);
#endif
  std::memcpy(dst, src, n);
  return checksum(src, n);
}

}  // namespace asc::sim
