#include "sim/vector_mask.h"

#include <algorithm>

#include "sim/handlers.h"

namespace asc::sim {
namespace {

// The first n bits of a 128-bit mask.
void first_bits(int64_t n, uint64_t out[2]) {
  n = std::clamp<int64_t>(n, 0, 128);
  out[0] = n >= 64 ? ~0ull : ((1ull << n) - 1);
  out[1] = n <= 64 ? 0 : (n >= 128 ? ~0ull : ((1ull << (n - 64)) - 1));
}

}  // namespace

namespace {
// The first and last selected element of a repeat's mask (-1 if none).
std::pair<int64_t, int64_t> selected_range(const uint64_t m[2], int64_t per_repeat) {
  int64_t first = -1, final = -1;
  for (int64_t i = 0; i < per_repeat; ++i)
    if ((m[i / 64] >> (i % 64)) & 1) {
      if (first < 0) first = i;
      final = i;
    }
  return {first, final};
}
}  // namespace

bool RepeatMask::extent(int64_t element_size, int64_t blk, int64_t rep, int64_t* lo, int64_t* hi) const {
  if (repeats <= 0) return false;
  // A repeat's mask has 128 bits: a destination narrower than the dtype the mask counts in (add_relu_cast's
  // int8 from float16) has no more selected elements than that.
  int64_t per_repeat = std::min<int64_t>(256 / element_size, 128), per_block = 32 / element_size;
  // Strides are non-negative: the lowest block is in repeat 0, the highest in
  // one of the last two repeats (the last may select fewer elements).
  bool found = false;
  for (int64_t r : {int64_t{0}, repeats - 2, repeats - 1}) {
    if (r < 0) continue;
    auto [first, final] = selected_range(r + 1 == repeats ? last : bits, per_repeat);
    if (first < 0) continue;
    int64_t a = (r * rep + (first / per_block) * blk) * 32, z = (r * rep + (final / per_block) * blk) * 32 + 32;
    *lo = found ? std::min(*lo, a) : a;
    *hi = found ? std::max(*hi, z) : z;
    found = true;
  }
  return found;
}

DType mask_dtype(const Kernel& kernel, const Op& op) {
  DType d = kernel.type_of(op.operands[0]).dtype;
  if (!op.info().mask_by_wider_dtype) return d;
  DType s = kernel.type_of(op.operands[1]).dtype;
  return dtype_size(s) > dtype_size(d) ? s : d;
}

void decode_mask(const Op& op, bool continuous, int64_t lo, int64_t hi, DType dtype, uint64_t out[2]) {
  int64_t per_repeat = 256 / dtype_size(dtype);
  if (!continuous) {
    out[0] = static_cast<uint64_t>(lo);
    out[1] = per_repeat > 64 ? static_cast<uint64_t>(hi) : 0;  // 32-bit elements: 64 per repeat, mask[1] unused
    return;
  }
  if (lo < 0)
    fail(ASC_ERR_INVALID_ARGUMENT, op.loc, "{}: a continuous mask of {} elements is negative", op.info().name, lo);
  first_bits(std::min(lo, per_repeat), out);  // more than a repeat holds selects the whole repeat
}

RepeatMask repeat_mask(const Block& b, const Op& op, const RtValue* in, size_t mask_operand, size_t repeat_operand,
                       DType dtype) {
  RepeatMask m;
  int64_t mode = op.attr_int(0);
  const VectorMaskReg& reg = b.issued_mask();
  if (mode == kMaskFromRegister && reg.counter) {  // counter mode: repeat_times is ignored
    int64_t per_repeat = 256 / dtype_size(dtype);
    auto count = static_cast<int64_t>(std::min<uint64_t>(reg.bits[0], uint64_t{1} << 40));
    m.repeats = (count + per_repeat - 1) / per_repeat;
    first_bits(per_repeat, m.bits);
    first_bits(count - (m.repeats - 1) * per_repeat, m.last);
    return m;
  }
  m.repeats = in[repeat_operand].i;
  if (mode == kMaskFromRegister) {
    m.bits[0] = reg.bits[0];
    m.bits[1] = 256 / dtype_size(dtype) > 64 ? reg.bits[1] : 0;
  } else {
    decode_mask(op, mode == 0, in[mask_operand].i, in[mask_operand + 1].i, dtype, m.bits);
  }
  m.last[0] = m.bits[0];
  m.last[1] = m.bits[1];
  return m;
}

// set_vector_mask: attribute 0 says length (0) or bits (1), attribute 1 the
// element dtype, attribute 2 the MaskMode (1: COUNTER, the length is a count).
void exec_SetVectorMask(Block& b, const Op& op, const RtValue* in, RtValue*) {
  VectorMaskReg& reg = b.mask_register();
  int64_t lo = in[0].i, hi = in[1].i;
  if (op.attr_int(2) == 1) {  // MaskMode.COUNTER: the count is the length, or mask_low
    if (lo < 0) fail(ASC_ERR_INVALID_ARGUMENT, op.loc, "set_vector_mask: element count {} is negative", lo);
    reg.bits[0] = static_cast<uint64_t>(lo);
    reg.bits[1] = 0;
    return;
  }
  decode_mask(op, op.attr_int(0) == 0, lo, hi, static_cast<DType>(op.attr_int(1)), reg.bits);
}

void exec_SetMaskCount(Block& b, const Op&, const RtValue*, RtValue*) { b.mask_register().counter = true; }
void exec_SetMaskNorm(Block& b, const Op&, const RtValue*, RtValue*) { b.mask_register().counter = false; }
void exec_ResetMask(Block& b, const Op&, const RtValue*, RtValue*) {
  b.mask_register().bits[0] = b.mask_register().bits[1] = ~0ull;
}

// At dispatch: a count-mode instruction leaves the register reset; a
// mask-mode one with is_set_mask=True loads its mask into it.
void Block::update_mask_register(const Op& op, const RtValue* in) {
  const OpInfo& info = op.info();
  switch (info.mask_reg) {
    case MaskReg::None: return;
    case MaskReg::Resets: mask_reg_ = VectorMaskReg{}; return;
    case MaskReg::ResetsBits: mask_reg_.bits[0] = mask_reg_.bits[1] = ~0ull; return;
    case MaskReg::LoadsRaw: mask_reg_ = {{static_cast<uint64_t>(in[info.mask_operand].i), 0}, false}; return;
    case MaskReg::Operands: break;
  }
  if (op.attr_int(0) == kMaskFromRegister) return;
  if (mask_reg_.counter)
    fail(ASC_ERR_INVALID_ARGUMENT, op.loc,
         "{}: the mask is in counter mode (set_mask_count); pass is_set_mask=False and set the element count with "
         "set_vector_mask, or call set_mask_norm first",
         info.name);
  decode_mask(op, op.attr_int(0) == 0, in[info.mask_operand].i, in[info.mask_operand + 1].i, mask_dtype(kernel(), op),
              mask_reg_.bits);
}

}  // namespace asc::sim
