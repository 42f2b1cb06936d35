// gather (by byte offsets) and gather_mask (keep the elements a bit pattern
// selects, packed from dst[0]). Which source (gather) or destination
// (gather_mask) elements they touch depends on data, so each access goes
// through Block::dynamic_access: bounds-checked and seen by the sanitizer.
#include <cstring>

#include "sim/handlers.h"
#include "sim/vector_mask.h"

namespace asc::sim {
namespace {

int64_t element_size(const Block& b, const Op& op) { return dtype_size(b.kernel().type_of(op.operands[0]).dtype); }

// dst element `i` = the src element at byte offset src_base + offsets[k].
void gather_one(Block& b, const Op& op, int64_t size, int64_t base, int64_t k, uint8_t* dst) {
  uint32_t offset;
  std::memcpy(&offset, b.effect_ptr(0) + k * 4, 4);
  int64_t at = base + offset;
  if (at % size != 0)
    fail(ASC_ERR_MISALIGNED, op.loc,
         "gather: src_base + src_offset[{}] = {} bytes is not a multiple of the element size ({} bytes)", k, at, size);
  std::memcpy(dst, b.dynamic_access(1, at, size), static_cast<size_t>(size));
}

}  // namespace

// Count form: dst[i] for i < count, offsets[i] in order.
void exec_Gather(Block& b, const Op& op, const RtValue* in, RtValue*) {
  int64_t size = element_size(b, op), count = in[4].i, per_repeat = 256 / size;
  if (count > 255 * per_repeat)
    fail(ASC_ERR_INVALID_ARGUMENT, op.loc,
         "gather: count {} needs more than 255 repeats of {} elements; the NPU's 8-bit repeat count would wrap", count,
         per_repeat);
  uint8_t* dst = b.effect_ptr(2);
  for (int64_t i = 0; i < count; ++i) gather_one(b, op, size, in[3].i, i, dst + i * size);
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
  uint64_t kept = 0;
  for (int64_t r = 0; r < repeats; ++r)
    for (int64_t i = 0; i < per_repeat; ++i) {
      bool keep = pattern ? (pattern[r * rep1 * 32 + i / 8] >> (i % 8)) & 1 : builtin_pattern_bit(in[2].i, i);
      if (!keep) continue;
      const uint8_t* element = src + (r * rep0 + (i / per_block) * blk) * 32 + (i % per_block) * size;
      std::memcpy(b.dynamic_access(dst_effect, static_cast<int64_t>(kept) * size, size), element,
                  static_cast<size_t>(size));
      ++kept;
    }
  out->i = static_cast<int64_t>(kept);
}

}  // namespace

void exec_GatherMask(Block& b, const Op& op, const RtValue* in, RtValue* out) { gather_mask(b, op, in, out, true); }
void exec_GatherMaskPattern(Block& b, const Op& op, const RtValue* in, RtValue* out) {
  gather_mask(b, op, in, out, false);
}

}  // namespace asc::sim
