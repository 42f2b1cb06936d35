// Unified Buffer bank conflicts of vector instructions on Atlas A2/A3 (dav-c220). The UB's 192 KiB are 48 banks of
// 128 rows of 32 bytes in 16 bank groups; 32-byte blocks are interleaved over the groups (block b is in group
// b % 16: Ascend C's best practice "避免Unified Buffer的bank冲突" puts 0x10000 in bank 16, 0x10020 in bank 17,
// 0x10E20 in bank 17, 0x20020 in bank 33, and bank 15, 31 and 47 in one group). Each beat the vector unit reads one
// row from each group and writes one row to each group, so a repeat whose blocks fall several in one group takes
// that many beats: the sample's 8 blocks written at a 512-byte stride take 8 beats, at 256 bytes 4; two sources
// in the same groups take 2 (add_high_performance case 5 against case 6: aiv_vec_time 12.846 us against 6.954 us,
// 2.2 against 1.2 cycles per repeat). Read-write conflicts (a source and the destination in one bank) are not
// charged: which repeat's write meets which repeat's read depends on the pipeline's depth, which is not published.
#pragma once

#include <cstddef>
#include <cstdint>

namespace asc::sim {

// One operand of a vector instruction: block j (0 <= j < per_repeat) of repeat r is UB block
// first + r * rep + j * blk (32-byte blocks).
struct BlockPattern {
  int64_t first;
  int64_t blk;
  int64_t rep;
  int64_t per_repeat;
  bool write;
};

// The beats `repeats` repeats of an instruction with these operands take: at least one per repeat.
uint64_t vector_beats(const BlockPattern* operands, size_t count, int64_t repeats);

}  // namespace asc::sim
