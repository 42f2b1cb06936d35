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
  // GM tensors: the L2 cache hint set_l2_cache_hint gave (Ascend C's CacheMode; kCacheModeDisable: reads bypass L2)
  uint32_t cache_mode = 0;
};

constexpr uint32_t kCacheModeDisable = 1;  // CacheMode::CACHE_MODE_DISABLE

}  // namespace asc::sim
