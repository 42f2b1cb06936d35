// The simulator's byte copies (data_copy and friends).
#pragma once

#include <cstddef>
#include <cstdint>

namespace asc::sim {

// memmove, faster where glibc is slow: on AMD Zen, glibc 2.36 copies
// cache-resident blocks of 8-64 KiB at under 2 GB/s (its rep-movsb path),
// where an unrolled AVX2 loop runs at over 30 GB/s and keeps pace with
// memmove on copies from and to DRAM. Overlapping ranges, small copies and
// hosts without AVX2 take memmove.
void copy_bytes(uint8_t* dst, const uint8_t* src, size_t n);

}  // namespace asc::sim
