// Layout instructions: transpose and brcb. Elements are moved as raw bits, so one
// routine per element width serves every dtype.
#include <cstring>
#include <vector>

#include "sim/handlers.h"

namespace asc::sim {
namespace {

// dst[i] = src[perm(i)] for `count` elements of `size` bytes.
template <typename Index>
void gather_elements(uint8_t* dst, const uint8_t* src, int64_t count, int64_t size, Index source_of) {
  for (int64_t i = 0; i < count; ++i) std::memcpy(dst + i * size, src + source_of(i) * size, static_cast<size_t>(size));
}

}  // namespace

// One 16x16 matrix: dst[r][c] = src[c][r]. src and dst may be the same tensor.
void exec_Transpose(Block& b, const Op& op, const RtValue*, RtValue*) {
  int64_t size = dtype_size(b.kernel().type_of(op.operands[0]).dtype);
  uint8_t copy[256 * 4];
  std::memcpy(copy, b.effect_ptr(0), static_cast<size_t>(256 * size));
  gather_elements(b.effect_ptr(1), copy, 256, size, [](int64_t i) { return (i % 16) * 16 + i / 16; });
}

// NCHW -> NHWC: dst[n][h][w][c] = src[n][c][h][w]; NHWC -> NCHW the inverse.
void exec_TransposeExt(Block& b, const Op& op, const RtValue* in, RtValue*) {
  int64_t size = dtype_size(b.kernel().type_of(op.operands[0]).dtype);
  const uint8_t* src = b.effect_ptr(0);
  uint8_t* dst = b.effect_ptr(2);
  int64_t type = op.attr_int(0);
  if (type == 10) {  // ND2ND_B16: one 16x16 matrix
    std::vector<uint8_t> copy(src, src + 256 * size);
    gather_elements(dst, copy.data(), 256, size, [](int64_t i) { return (i % 16) * 16 + i / 16; });
    return;
  }
  int64_t n = in[3].i, c = in[4].i, hw = in[5].i * in[6].i;
  if (type == 11)  // i indexes dst [n][hw][c]
    gather_elements(dst, src, n * c * hw, size, [=](int64_t i) {
      int64_t ch = i % c, p = (i / c) % hw, batch = i / (c * hw);
      return (batch * c + ch) * hw + p;
    });
  else  // i indexes dst [n][c][hw]
    gather_elements(dst, src, n * c * hw, size, [=](int64_t i) {
      int64_t p = i % hw, ch = (i / hw) % c, batch = i / (c * hw);
      return (batch * hw + p) * c + ch;
    });
}

// brcb: repeat r takes src[8r .. 8r+7]; element j fills the 32-byte block at
// (r * dst_rep_stride + j * dst_blk_stride) blocks.
void exec_Brcb(Block& b, const Op& op, const RtValue* in, RtValue*) {
  int64_t size = dtype_size(b.kernel().type_of(op.operands[0]).dtype);
  int64_t repeats = in[2].i, blk = in[3].i, rep = in[4].i;
  const uint8_t* src = b.effect_ptr(0);
  uint8_t* dst = b.effect_ptr(1);
  for (int64_t r = 0; r < repeats; ++r)
    for (int64_t j = 0; j < 8; ++j) {
      uint8_t* block = dst + (r * rep + j * blk) * 32;
      for (int64_t e = 0; e < 32 / size; ++e) std::memcpy(block + e * size, src + (r * 8 + j) * size, size);
    }
}

}  // namespace asc::sim
