// The checksum of bytes a block wrote to GM, taken as they are written
// (Block) and again over GM after the launch (the cross-block write check).
#pragma once

#include <cstdint>
#include <cstring>

namespace asc::sim {

// Two blocks writing the same bytes with the same values is harmless in any
// order: the conflict check compares these checksums. Fletcher-style pairs of
// sums over 8-byte words in four independent lanes (order-sensitive, and the
// compiler vectorises them) keep the sanitizer's cost per written byte far
// below the copy's own. With kCopy the same pass also copies p to dst, so a
// copy to GM reads its bytes once.
template <bool kCopy>
inline uint64_t checksum(uint8_t* dst, const uint8_t* p, uint64_t n) {
  uint64_t a[4] = {1, 2, 3, 4}, b[4] = {n, 0, 0, 0};
  uint64_t k = 0;
  for (; k + 32 <= n; k += 32) {
    uint64_t w[4];
    std::memcpy(w, p + k, 32);
    if constexpr (kCopy) std::memcpy(dst + k, w, 32);
    for (int j = 0; j < 4; ++j) {
      a[j] += w[j];
      b[j] += a[j];
    }
  }
  uint64_t h = 1469598103934665603ull;
  for (; k < n; ++k) {
    if constexpr (kCopy) dst[k] = p[k];
    h = (h ^ p[k]) * 1099511628211ull;
  }
  for (int j = 0; j < 4; ++j) h = (h ^ a[j] ^ (b[j] << 1)) * 0xbf58476d1ce4e5b9ull;
  return h;
}

}  // namespace asc::sim
