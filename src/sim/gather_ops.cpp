// gather (by byte offsets) and gather_mask (keep the elements a bit pattern
// selects, packed from dst[0]). Which source (gather) or destination
// (gather_mask) elements they touch depends on data, so each access goes
// through Block::dynamic_access: bounds-checked and seen by the sanitizer.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "sim/handlers.h"
#include "sim/vector_mask.h"

namespace asc::sim {
namespace {

int64_t element_size(const Block& b, const Op& op) { return dtype_size(b.kernel().type_of(op.operands[0]).dtype); }

// The byte offset in src of element k: src_base + offsets[k], a whole element.
int64_t source_offset(const Block& b, const Op& op, int64_t size, int64_t base, int64_t k) {
  uint32_t offset;
  std::memcpy(&offset, b.effect_ptr(0) + k * 4, 4);
  int64_t at = base + offset;
  if (at % size != 0)
    fail(ASC_ERR_MISALIGNED, op.loc,
         "gather: src_base + src_offset[{}] = {} bytes is not a multiple of the element size ({} bytes)", k, at, size);
  return at;
}

// dst element `i` = the src element at byte offset src_base + offsets[k].
void gather_one(Block& b, const Op& op, int64_t size, int64_t base, int64_t k, uint8_t* dst) {
  std::memcpy(dst, b.dynamic_access(1, source_offset(b, op, size, base, k), size), static_cast<size_t>(size));
}

}  // namespace

// Count form: dst[i] for i < count, offsets[i] in order. The instruction's reads happen together, so the
// sanitizer sees each run of adjacent source bytes once (an im2col tile reads a few long runs), not each element;
// a run out of bounds is checked again element by element, for the message naming the first such element.
void exec_Gather(Block& b, const Op& op, const RtValue* in, RtValue*) {
  int64_t size = element_size(b, op), count = in[4].i, per_repeat = 256 / size, base = in[3].i;
  if (count > 255 * per_repeat)
    fail(ASC_ERR_INVALID_ARGUMENT, op.loc,
         "gather: count {} needs more than 255 repeats of {} elements; the NPU's 8-bit repeat count would wrap", count,
         per_repeat);
  std::vector<int64_t> at(static_cast<size_t>(count));
  for (int64_t k = 0; k < count; ++k) at[k] = source_offset(b, op, size, base, k);
  std::vector<int64_t> sorted = at;
  std::sort(sorted.begin(), sorted.end());
  for (size_t i = 0; i < sorted.size();) {
    size_t j = i + 1;
    while (j < sorted.size() && sorted[j] <= sorted[j - 1] + size) ++j;
    int64_t lo = sorted[i], hi = sorted[j - 1] + size;
    try {
      b.dynamic_access(1, lo, hi - lo);
    } catch (...) {
      for (size_t k = i; k < j; ++k) b.dynamic_access(1, sorted[k], size);
      throw;
    }
    i = j;
  }
  const uint8_t* src = b.effect_ptr(1);
  uint8_t* dst = b.effect_ptr(2);
  for (int64_t k = 0; k < count; ++k) std::memcpy(dst + k * size, src + at[k], static_cast<size_t>(size));
}

// Mask form: repeat r gathers 256 bytes to dst + r * dst_rep_stride blocks,
// element i using offsets[r * N + i] when the mask selects it.
void exec_GatherMaskForm(Block& b, const Op& op, const RtValue* in, RtValue*) {
  int64_t size = element_size(b, op), per_repeat = 256 / size, rep = in[7].i;
  RepeatMask mask = repeat_mask(b, op, in, 4, 6, b.kernel().type_of(op.operands[0]).dtype);
  uint8_t* dst = b.effect_ptr(2);
  for (int64_t r = 0; r < mask.repeats; ++r)
    for (int64_t i = 0; i < per_repeat; ++i)
      if (mask.selects(r, i)) gather_one(b, op, size, in[3].i, r * per_repeat + i, dst + r * rep * 32 + i * size);
}

namespace {

void require_scatter(const Block& b, const Op& op) {
  if (!b.platform().scatter)
    fail(ASC_ERR_UNSUPPORTED, op.loc,
         "scatter: {} (Atlas A2/A3) has no Scatter instruction (Ascend C reports it as not supported there); write "
         "the elements with set_value, or restructure the kernel around gather",
         b.platform().name);
}

// Element k of src (at `from`) to byte dst_base + dst_offset[k] of dst.
void scatter_one(Block& b, const Op& op, int64_t size, int64_t base, int64_t k, const uint8_t* from) {
  uint32_t offset;
  std::memcpy(&offset, b.effect_ptr(0) + k * 4, 4);
  int64_t at = base + offset;
  if (at % size != 0)
    fail(ASC_ERR_MISALIGNED, op.loc,
         "scatter: dst_base + dst_offset[{}] = {} bytes is not a multiple of the element size ({} bytes)", k, at, size);
  std::memcpy(b.dynamic_access(2, at, size), from, static_cast<size_t>(size));
}

}  // namespace

// Count form: src[i] for i < count, in order (a later element wins where offsets repeat).
void exec_Scatter(Block& b, const Op& op, const RtValue* in, RtValue*) {
  require_scatter(b, op);
  int64_t size = element_size(b, op), count = in[4].i, per_repeat = 256 / size;
  if (count > 255 * per_repeat)
    fail(ASC_ERR_INVALID_ARGUMENT, op.loc,
         "scatter: count {} needs more than 255 repeats of {} elements; the NPU's 8-bit repeat count would wrap", count,
         per_repeat);
  const uint8_t* src = b.effect_ptr(1);
  for (int64_t i = 0; i < count; ++i) scatter_one(b, op, size, in[3].i, i, src + i * size);
}

// Mask form: repeat r scatters the selected elements of the 256 bytes at src + r * src_rep_stride blocks,
// element i by offsets[r * N + i].
void exec_ScatterMaskForm(Block& b, const Op& op, const RtValue* in, RtValue*) {
  require_scatter(b, op);
  int64_t size = element_size(b, op), per_repeat = 256 / size, rep = in[7].i;
  RepeatMask mask = repeat_mask(b, op, in, 4, 6, b.kernel().type_of(op.operands[0]).dtype);
  const uint8_t* src = b.effect_ptr(1);
  for (int64_t r = 0; r < mask.repeats; ++r)
    for (int64_t i = 0; i < per_repeat; ++i)
      if (mask.selects(r, i)) scatter_one(b, op, size, in[3].i, r * per_repeat + i, src + r * rep * 32 + i * size);
}

namespace {

// Built-in patterns: 1 even elements, 2 odd, 3..6 one of every four (offset
// 0..3), 7 all.
bool builtin_pattern_bit(int64_t pattern, int64_t i) {
  if (pattern <= 2) return i % 2 == pattern - 1;
  if (pattern <= 6) return i % 4 == pattern - 3;
  return true;
}

// Repeat r covers `per_repeat` elements of src0 (element i at (r * rep +
// (i / per_block) * blk) blocks); its pattern bits start r * src1_rep blocks
// into the pattern tensor. Kept elements are packed from dst[0].
void gather_mask(Block& b, const Op& op, const RtValue* in, RtValue* out, bool tensor_pattern) {
  int64_t size = element_size(b, op), per_block = 32 / size;
  int64_t per_repeat = in[3].i ? in[4].i : 256 / size;
  int64_t blk = in[5].i, repeats = in[6].i, rep0 = in[7].i, rep1 = in[8].i;
  if (!tensor_pattern && (in[2].i < 1 || in[2].i > 7))
    fail(ASC_ERR_INVALID_ARGUMENT, op.loc, "gather_mask: built-in pattern {} is not one of 1..7", in[2].i);
  const uint8_t* src = b.effect_ptr(0);
  const uint8_t* pattern = tensor_pattern ? b.effect_ptr(1) : nullptr;
  size_t dst_effect = op.info().effects.size() - 1;
  auto keeps = [&](int64_t r, int64_t i) -> bool {
    return pattern ? (pattern[r * rep1 * 32 + i / 8] >> (i % 8)) & 1 : builtin_pattern_bit(in[2].i, i);
  };
  // The kept elements fill dst from its start: one access for all of them (bounds-checked and seen by the
  // sanitizer as one range, not an access an element), then the copies in the instruction's order.
  int64_t total = 0;
  for (int64_t r = 0; r < repeats; ++r)
    for (int64_t i = 0; i < per_repeat; ++i) total += keeps(r, i);
  uint8_t* dst = total ? b.dynamic_access(dst_effect, 0, total * size) : nullptr;
  uint64_t kept = 0;
  for (int64_t r = 0; r < repeats; ++r)
    for (int64_t i = 0; i < per_repeat; ++i) {
      if (!keeps(r, i)) continue;
      const uint8_t* element = src + (r * rep0 + (i / per_block) * blk) * 32 + (i % per_block) * size;
      std::memcpy(dst + kept * size, element, static_cast<size_t>(size));
      ++kept;
    }
  out->i = static_cast<int64_t>(kept);
  b.gather_mask_remain() = kept;  // RSVD_CNT, for get_gather_mask_remain_count
}

}  // namespace

void exec_GatherMask(Block& b, const Op& op, const RtValue* in, RtValue* out) { gather_mask(b, op, in, out, true); }
void exec_GatherMaskPattern(Block& b, const Op& op, const RtValue* in, RtValue* out) {
  gather_mask(b, op, in, out, false);
}

// RSVD_CNT: the kept count of this core's last gather_mask (0 before any).
void exec_GetGatherMaskRemainCount(Block& b, const Op&, const RtValue*, RtValue* out) {
  out->i = static_cast<int64_t>(b.gather_mask_remain());
}

namespace {

// The byte offset entry k of a uint32 offset tensor names: a 32-byte aligned block start.
int64_t block_offset(const Op& op, const uint8_t* offsets, int64_t k, const char* what) {
  uint32_t offset;
  std::memcpy(&offset, offsets + k * 4, 4);
  if (offset % 32 != 0)
    fail(ASC_ERR_MISALIGNED, op.loc, "{}: {}[{}] = {} bytes is not a multiple of 32 (a block start)", op.info().name,
         what, k, offset);
  return offset;
}

// A half result of the vector unit: rounded to nearest, saturating (a finite value never becomes inf).
_Float16 to_half_saturating(float v) {
  _Float16 h = static_cast<_Float16>(v);
  if (std::isinf(static_cast<float>(h)) && std::isfinite(v)) return static_cast<_Float16>(v > 0 ? 65504.0f : -65504.0f);
  return h;
}

}  // namespace

// gatherb: dst block (r * dst_rep + b * dst_blk) = the src0 block at byte offset offset[8r + b].
void exec_Gatherb(Block& b, const Op& op, const RtValue* in, RtValue*) {
  const uint8_t* offsets = b.effect_ptr(0);
  uint8_t* dst = b.effect_ptr(2);
  for (int64_t r = 0; r < in[3].i; ++r)
    for (int64_t k = 0; k < 8; ++k) {
      int64_t offset = block_offset(op, offsets, r * 8 + k, "offset");
      std::memcpy(dst + (r * in[5].i + k * in[4].i) * 32, b.dynamic_access(1, offset, 32), 32);
    }
}

// bilinear_interpolation (the row's comment in ir/ops_gather.cpp): products and sums round to half.
void exec_BilinearInterpolation(Block& b, const Op& op, const RtValue* in, RtValue*) {
  uint64_t mask[2];
  decode_mask(op, op.attr_int(0) == 0, in[4].i, in[5].i, DType::Float16, mask);
  const int64_t h_repeat = in[6].i, blk = in[8].i, v_offset = in[9].i, v_repeat = in[10].i;
  const bool per_block = in[7].i != 0;
  const uint8_t *offsets = b.effect_ptr(0), *src1 = b.effect_ptr(1);
  uint8_t* dst = b.effect_ptr(3);
  for (int64_t v = 0; v < v_repeat; ++v)
    for (int64_t h = 0; h < h_repeat; ++h) {
      const int64_t k = v * h_repeat + h;
      for (int64_t blk_i = 0; blk_i < 8; ++blk_i) {
        int64_t offset = block_offset(op, offsets, k * 8 + blk_i, "src0_offset");
        const uint8_t* src = b.dynamic_access(2, offset, 32);
        _Float16 w;
        std::memcpy(&w, src1 + (per_block ? k * 8 + blk_i : k) * 2, 2);
        uint8_t* d = dst + v * v_offset * 2 + blk_i * blk * 32;
        for (int64_t e = 0; e < 16; ++e) {
          int64_t i = blk_i * 16 + e;
          if (!((mask[i / 64] >> (i % 64)) & 1)) continue;
          _Float16 x, old;
          std::memcpy(&x, src + e * 2, 2);
          _Float16 p = to_half_saturating(static_cast<float>(x) * static_cast<float>(w));
          if (h > 0) {
            std::memcpy(&old, d + e * 2, 2);
            p = to_half_saturating(static_cast<float>(old) + static_cast<float>(p));
          }
          std::memcpy(d + e * 2, &p, 2);
        }
      }
    }
}

}  // namespace asc::sim
