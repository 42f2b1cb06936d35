// compare / compare_scalar: one result bit per element, little-endian within
// each byte of dst. Count form: count * sizeof(T) must be whole 256-byte
// repeats (the Ascend C constraint). Mask form: Atlas A2 compares every
// element of each repeat (the mask is reserved) and writes repeat r's N bits
// at dst + r * N / 8 bytes. compare.register writes the selected bits of the
// compare register CMPMASK instead.
//
// select: dst[i] = bit i of the selection ? src0[i] : src1[i] (or the
// scalar). VSEL_CMPMASK_SPR (0) uses the same N bits for every repeat (and
// loads them into CMPMASK); modes 1 and 2 take bits [rN, rN + N) for repeat r.
#include <cstdint>
#include <cstring>

#include "sim/handlers.h"
#include "sim/scalar_math.h"
#include "sim/vector_mask.h"

namespace asc::sim {
namespace {

float load(const uint8_t* p, DType d) { return load_float(p, d); }

bool compare(int64_t mode, float a, float b) {
  switch (mode) {
    case 0: return a < b;    // LT
    case 1: return a > b;    // GT
    case 2: return a == b;   // EQ
    case 3: return a <= b;   // LE
    case 4: return a >= b;   // GE
    default: return a != b;  // NE
  }
}

bool bit(const uint8_t* bits, int64_t i) { return (bits[i / 8] >> (i % 8)) & 1; }
void set_bit(uint8_t* bits, int64_t i, bool on) {
  bits[i / 8] = static_cast<uint8_t>(on ? bits[i / 8] | (1u << (i % 8)) : bits[i / 8] & ~(1u << (i % 8)));
}

// Byte offset of element e of repeat r of a strided operand.
int64_t element_at(int64_t r, int64_t e, int64_t size, int64_t blk, int64_t rep) {
  return (r * rep + (e / (32 / size)) * blk) * 32 + (e % (32 / size)) * size;
}

void run_compare(Block& b, const Op& op, const RtValue* in, bool scalar) {
  DType d = b.kernel().type_of(op.operands[1]).dtype;
  size_t size = dtype_size(d);
  int64_t n = in[3].i;
  if ((n * static_cast<int64_t>(size)) % 256 != 0)
    fail(ASC_ERR_MISALIGNED, op.loc, "{}: {} elements of {} is not a whole number of 256-byte repeats", op.info().name,
         n, dtype_name(d));
  const uint8_t* src0 = b.effect_ptr(0);
  const uint8_t* src1 = scalar ? nullptr : b.effect_ptr(1);
  uint8_t* dst = b.effect_ptr(scalar ? 1 : 2);
  float s = static_cast<float>(in[2].f);
  int64_t mode = op.attr_int(0);
  for (int64_t i = 0; i < n; ++i)
    set_bit(dst, i, compare(mode, load(src0 + i * size, d), scalar ? s : load(src1 + i * size, d)));
}

// operands: dst, src0, src1, mask0, mask1, repeat_times, block strides (dst first), repeat strides.
void run_compare_mask(Block& b, const Op& op, const RtValue* in, bool scalar) {
  DType d = b.kernel().type_of(op.operands[1]).dtype;
  int64_t size = dtype_size(d), per_repeat = 256 / size, tensors = scalar ? 2 : 3;
  const uint8_t* src0 = b.effect_ptr(0);
  const uint8_t* src1 = scalar ? nullptr : b.effect_ptr(1);
  uint8_t* dst = b.effect_ptr(scalar ? 1 : 2);
  int64_t mode = op.attr_int(1);
  float s = static_cast<float>(in[2].f);
  for (int64_t r = 0; r < in[5].i; ++r)
    for (int64_t e = 0; e < per_repeat; ++e) {
      float a = load(src0 + element_at(r, e, size, in[7].i, in[7 + tensors].i), d);
      float c = scalar ? s : load(src1 + element_at(r, e, size, in[8].i, in[8 + tensors].i), d);
      set_bit(dst, r * per_repeat + e, compare(mode, a, c));
    }
}

// select's resolved operands; effects are: selection bits, src0, src1 (a tensor), dst.
struct SelectOperands {
  DType d;
  int64_t size;
  uint8_t scalar[4];
  const uint8_t *sel = nullptr, *src0 = nullptr, *src1 = nullptr;
  uint8_t* dst = nullptr;
  SelectOperands(Block& b, const Op& op, const RtValue* in, bool scalar_src1)
      : SelectOperands(b.kernel().type_of(op.operands[0]).dtype, in[3].f) {
    sel = b.effect_ptr(0);
    src0 = b.effect_ptr(1);
    src1 = scalar_src1 ? nullptr : b.effect_ptr(2);
    dst = b.effect_ptr(scalar_src1 ? 2 : 3);
  }
  SelectOperands(DType dtype, double value) : d(dtype), size(dtype_size(dtype)) {
    if (d == DType::Float16) {
      _Float16 h = static_cast<_Float16>(static_cast<float>(value));
      std::memcpy(scalar, &h, 2);
    } else {
      float f = static_cast<float>(value);
      std::memcpy(scalar, &f, 4);
    }
  }
};

// A scalar select puts its scalar in CMPMASK, as Ascend C does (set_cmpmask of a block of it before vsel
// mode 1), where a later select_scalar.register finds it.
void load_scalar_into_cmp_mask(Block& b, const SelectOperands& s) {
  uint8_t bits[16];
  for (int64_t k = 0; k < 16; k += s.size) std::memcpy(bits + k, s.scalar, static_cast<size_t>(s.size));
  std::memcpy(b.cmp_mask(), bits, 16);
}

void run_select(Block& b, const Op& op, const RtValue* in, bool scalar) {
  SelectOperands s(b, op, in, scalar);
  if (scalar) load_scalar_into_cmp_mask(b, s);
  // VSEL_CMPMASK_SPR reuses the first repeat's bits for every repeat
  int64_t period = op.attr_int(0) == 0 ? 256 / s.size : INT64_MAX;
  for (int64_t i = 0; i < in[4].i; ++i)
    std::memmove(s.dst + i * s.size,
                 bit(s.sel, i % period) ? s.src0 + i * s.size : (scalar ? s.scalar : s.src1 + i * s.size),
                 static_cast<size_t>(s.size));
}

// Selects element e of repeat r where the mask allows: `take0(r, e)` picks src0.
template <typename Take0>
void select_repeats(Block& b, const Op& op, const RtValue* in, const SelectOperands& s, size_t mask_operand,
                    Take0 take0) {
  RepeatMask mask = repeat_mask(b, op, in, mask_operand, mask_operand + 2, s.d);
  auto stride = [&](size_t k) { return in[mask_operand + 3 + k].i; };  // block strides dst, src0, src1; then repeat
  for (int64_t r = 0; r < mask.repeats; ++r)
    for (int64_t e = 0; e < 256 / s.size; ++e) {
      if (!mask.selects(r, e)) continue;
      const uint8_t* from = take0(r, e) ? s.src0 + element_at(r, e, s.size, stride(1), stride(4))
                            : s.src1    ? s.src1 + element_at(r, e, s.size, stride(2), stride(5))
                                        : s.scalar;
      std::memmove(s.dst + element_at(r, e, s.size, stride(0), stride(3)), from, static_cast<size_t>(s.size));
    }
}

// operands: dst, sel_mask, src0, src1, mask0, mask1, repeat_times, block strides, repeat strides.
void run_select_mask(Block& b, const Op& op, const RtValue* in, bool scalar) {
  SelectOperands s(b, op, in, scalar);
  const uint8_t* sel = s.sel;
  const int64_t per_repeat = 256 / s.size;
  if (op.attr_int(1) == 0) {  // VSEL_CMPMASK_SPR: sel_mask's first N bits go through CMPMASK
    uint64_t* cmp = b.cmp_mask();
    cmp[0] = cmp[1] = 0;
    std::memcpy(cmp, sel, static_cast<size_t>(per_repeat / 8));
    select_repeats(b, op, in, s, 4, [&](int64_t, int64_t e) { return bit(sel, e); });
    return;
  }
  if (scalar) load_scalar_into_cmp_mask(b, s);
  select_repeats(b, op, in, s, 4, [&](int64_t r, int64_t e) { return bit(sel, r * per_repeat + e); });
}

}  // namespace

void exec_Compare(Block& b, const Op& op, const RtValue* in, RtValue*) { run_compare(b, op, in, false); }
void exec_CompareScalar(Block& b, const Op& op, const RtValue* in, RtValue*) { run_compare(b, op, in, true); }
void exec_Select(Block& b, const Op& op, const RtValue* in, RtValue*) { run_select(b, op, in, false); }
void exec_SelectScalar(Block& b, const Op& op, const RtValue* in, RtValue*) { run_select(b, op, in, true); }
void exec_CompareMask(Block& b, const Op& op, const RtValue* in, RtValue*) { run_compare_mask(b, op, in, false); }
void exec_CompareScalarMask(Block& b, const Op& op, const RtValue* in, RtValue*) { run_compare_mask(b, op, in, true); }
void exec_SelectMask(Block& b, const Op& op, const RtValue* in, RtValue*) { run_select_mask(b, op, in, false); }
void exec_SelectScalarMask(Block& b, const Op& op, const RtValue* in, RtValue*) { run_select_mask(b, op, in, true); }

// One repeat of src0 <cmp_mode> src1 into the CMPMASK bits the mask selects
// (the others keep their value). operands: src0, src1, mask0, mask1, repeat,
// src0_blk, src1_blk, src0_rep, src1_rep.
void exec_CompareRegister(Block& b, const Op& op, const RtValue* in, RtValue*) {
  DType d = b.kernel().type_of(op.operands[0]).dtype;
  int64_t size = dtype_size(d);
  RepeatMask mask = repeat_mask(b, op, in, 2, 4, d);
  uint8_t bits[16];
  std::memcpy(bits, b.cmp_mask(), 16);
  for (int64_t e = 0; e < 256 / size; ++e)
    if (mask.selects(0, e))
      set_bit(bits, e,
              compare(op.attr_int(1), load(b.effect_ptr(0) + element_at(0, e, size, in[5].i, in[7].i), d),
                      load(b.effect_ptr(1) + element_at(0, e, size, in[6].i, in[8].i), d)));
  std::memcpy(b.cmp_mask(), bits, 16);
}

// VSEL_CMPMASK_SPR with the bits already in CMPMASK. operands: dst, src0,
// src1, mask0, mask1, repeat_times, block strides, repeat strides.
void exec_SelectRegister(Block& b, const Op& op, const RtValue* in, RtValue*) {
  SelectOperands s(b.kernel().type_of(op.operands[0]).dtype, 0.0);
  s.src0 = b.effect_ptr(0);
  s.src1 = b.effect_ptr(1);
  s.dst = b.effect_ptr(2);
  uint8_t bits[16];
  std::memcpy(bits, b.cmp_mask(), 16);
  select_repeats(b, op, in, s, 3, [&](int64_t, int64_t e) { return bit(bits, e); });
}

// VSEL_TENSOR_SCALAR_MODE with the scalar in CMPMASK's low sizeof(T) bytes; repeat r takes sel_mask's bits
// [rN, rN + N). operands: dst, sel_mask, src0, mask0, mask1, repeat_times, block strides, repeat strides.
void exec_SelectScalarRegister(Block& b, const Op& op, const RtValue* in, RtValue*) {
  SelectOperands s(b.kernel().type_of(op.operands[0]).dtype, 0.0);
  std::memcpy(s.scalar, b.cmp_mask(), static_cast<size_t>(s.size));
  s.sel = b.effect_ptr(0);
  s.src0 = b.effect_ptr(1);
  s.dst = b.effect_ptr(2);
  const int64_t per_repeat = 256 / s.size;
  select_repeats(b, op, in, s, 3, [&](int64_t r, int64_t e) { return bit(s.sel, r * per_repeat + e); });
}

void exec_GetCmpMask(Block& b, const Op&, const RtValue*, RtValue*) { std::memcpy(b.effect_ptr(0), b.cmp_mask(), 16); }
void exec_SetCmpMask(Block& b, const Op&, const RtValue*, RtValue*) { std::memcpy(b.cmp_mask(), b.effect_ptr(0), 16); }

}  // namespace asc::sim
