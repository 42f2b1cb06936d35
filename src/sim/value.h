// Run-time values of the Model: one register per IR value, per block.
#pragma once

#include <cstdint>
#include <limits>

namespace asc::sim {

constexpr uint64_t kUnknownLength = std::numeric_limits<uint64_t>::max();
// RtValue::mem of a local tensor: kMemLocal + its Memory (ir/types.h); GM
// buffers use the kernel argument index.
constexpr uint32_t kMemLocal = 0xFFFF0001u;
constexpr uint32_t kMemUB = kMemLocal;  // Memory::UB
inline bool is_local_mem(uint32_t mem) { return mem >= kMemLocal; }

struct RtValue {
  int64_t i = 0;     // integer scalars (wrapped to their dtype's width)
  double f = 0;      // floating-point scalars (rounded to their dtype)
  int64_t addr = 0;  // tensors / GM addresses: byte offset inside `mem`
  uint64_t len = 0;  // tensors: length in elements (kUnknownLength: up to the buffer end)
  uint32_t mem = 0;  // argument index for GM, kMemLocal + Memory for local tensors
  // GM tensors: the L2 cache hint set_l2_cache_hint gave: its CacheMode (pyasc's numbering, kCacheMode*) and the
  // CacheRwMode bits it applies to (kCacheRead | kCacheWrite); the timing model's L2 reads them (sim/hbm_sharing.h).
  uint16_t cache_mode = 0;
  uint16_t cache_rw = 3;  // kCacheRead | kCacheWrite: CacheRwMode::RW, Ascend C's default
};

constexpr uint16_t kCacheModeNormal = 0, kCacheModeDisable = 1, kCacheModeLast = 2, kCacheModePersistent = 4;
constexpr uint16_t kCacheRead = 1, kCacheWrite = 2;  // CacheRwMode READ / WRITE (RW: both)

}  // namespace asc::sim
