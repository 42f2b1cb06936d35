// The simulator's byte copies (data_copy and friends).
#pragma once

#include <cstddef>
#include <cstdint>

namespace asc::sim {

// How a copy writes its destination. Streaming stores bypass the host's caches: for a GM output too large to
// stay cached until anyone reads it, they save the read of each destination line an ordinary store makes first
// (about a quarter of an elementwise kernel's memory traffic).
enum class Store { Cached, Streaming };

// memmove, faster where glibc is slow: on AMD Zen, glibc 2.36 copies
// cache-resident blocks of 8-64 KiB at under 2 GB/s (its rep-movsb path),
// where an unrolled AVX2 loop runs at over 30 GB/s and keeps pace with
// memmove on copies from and to DRAM. Overlapping ranges, small copies and
// hosts without AVX2 take memmove (and ordinary stores).
void copy_bytes(uint8_t* dst, const uint8_t* src, size_t n, Store store = Store::Cached);

// Whether copies into a GM buffer of `bytes` stream: from this size its lines leave the host core's cache
// before the launch ends anyway.
inline Store store_for_gm(uint64_t bytes) { return bytes >= (uint64_t{8} << 20) ? Store::Streaming : Store::Cached; }

}  // namespace asc::sim
