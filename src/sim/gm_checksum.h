// The checksum of bytes a block wrote to GM, taken as they are written
// (Block) and again over GM after the launch (the cross-block write check).
#pragma once

#include <cstdint>
#include <cstring>

#include "sim/copy_bytes.h"

namespace asc::sim {

// Two blocks writing the same bytes with the same values is harmless in any
// order: the conflict check compares these checksums. Fletcher-style pairs of
// sums over 8-byte words in four independent lanes (order-sensitive, and the
// compiler vectorises them) keep the sanitizer's cost per written byte far
// below the copy's own.
struct ChecksumLanes {
  uint64_t a[4] = {1, 2, 3, 4}, b[4] = {0, 0, 0, 0};

  void add(const uint8_t* word32) {
    uint64_t w[4];
    std::memcpy(w, word32, 32);
    for (int j = 0; j < 4; ++j) {
      a[j] += w[j];
      b[j] += a[j];
    }
  }
  // The bytes past the last whole 32-byte word [k, n), and the lanes folded into one value.
  uint64_t finish(const uint8_t* p, uint64_t k, uint64_t n) const {
    uint64_t h = 1469598103934665603ull;
    for (; k < n; ++k) h = (h ^ p[k]) * 1099511628211ull;
    for (int j = 0; j < 4; ++j) h = (h ^ a[j] ^ ((b[j] + (j == 0 ? n : 0)) << 1)) * 0xbf58476d1ce4e5b9ull;
    return h;
  }
};

inline uint64_t checksum(const uint8_t* p, uint64_t n) {
  ChecksumLanes lanes;
  uint64_t k = 0;
  for (; k + 32 <= n; k += 32) lanes.add(p + k);
  return lanes.finish(p, k, n);
}

// Copies src to dst (apart) and returns checksum(src, n): a copy to GM reads its bytes once.
uint64_t copy_checksummed(uint8_t* dst, const uint8_t* src, uint64_t n, Store store);

}  // namespace asc::sim
