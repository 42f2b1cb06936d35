// The element selection of a vector instruction in mask/repeat mode: its
// mask operands, or the mask register it captured at dispatch (normal mode:
// a 128-bit element mask per repeat; counter mode: an element count, the
// repeats it needs computed and the last one partial).
#pragma once

#include <cstdint>

#include "sim/block.h"

namespace asc::sim {

struct RepeatMask {
  int64_t repeats = 0;
  uint64_t bits[2] = {0, 0};  // every repeat but the last
  uint64_t last[2] = {0, 0};  // the last repeat
  bool selects(int64_t repeat, int64_t i) const {
    const uint64_t* m = repeat + 1 == repeats ? last : bits;
    return (m[i / 64] >> (i % 64)) & 1;
  }
  // The bytes [lo, hi) from the tensor's start that the selected elements'
  // 32-byte blocks cover, block b of repeat r at (r * rep + b * blk) blocks;
  // false if nothing is selected.
  bool extent(int64_t element_size, int64_t blk, int64_t rep, int64_t* lo, int64_t* hi) const;
};

// `mask_operand` and the one after it are mask0/mask1, `repeat_operand` the
// repeat count; the op's attribute 0 is its mask_mode.
RepeatMask repeat_mask(const Block& b, const Op& op, const RtValue* in, size_t mask_operand, size_t repeat_operand,
                       DType dtype);

// The dtype whose repeat the mask describes: dst's, or for cast the wider of
// dst and src (a repeat holds 256 bytes of the wider type).
DType mask_dtype(const Kernel& kernel, const Op& op);

// The 128 mask bits of set_vector_mask / a mask operand pair: a continuous
// length (the first `lo` elements) or the bits themselves.
void decode_mask(const Op& op, bool continuous, int64_t lo, int64_t hi, DType dtype, uint64_t out[2]);

}  // namespace asc::sim
