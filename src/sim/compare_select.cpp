// compare / compare_scalar: one result bit per element, little-endian within
// each byte of dst; count * sizeof(T) must be whole 256-byte repeats (the
// Ascend C constraint). select / select_scalar: dst[i] = bit i of sel_mask ?
// src0[i] : src1[i] (or the scalar).
#include <cstring>

#include "sim/handlers.h"
#include "sim/scalar_math.h"

namespace asc::sim {
namespace {

float load(const uint8_t* p, DType d) { return load_float(p, d); }

bool compare(int mode, float a, float b) {
  switch (mode) {
    case 0: return a < b;    // LT
    case 1: return a > b;    // GT
    case 2: return a == b;   // EQ
    case 3: return a <= b;   // LE
    case 4: return a >= b;   // GE
    default: return a != b;  // NE
  }
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
  std::memset(dst, 0, static_cast<size_t>((n + 7) / 8));
  int mode = static_cast<int>(op.attr_int(0));
  for (int64_t i = 0; i < n; ++i)
    if (compare(mode, load(src0 + i * size, d), scalar ? s : load(src1 + i * size, d)))
      dst[i / 8] = static_cast<uint8_t>(dst[i / 8] | (1u << (i % 8)));
}

void run_select(Block& b, const Op& op, const RtValue* in, bool scalar) {
  DType d = b.kernel().type_of(op.operands[0]).dtype;
  size_t size = dtype_size(d);
  const uint8_t* mask = b.effect_ptr(0);
  const uint8_t* src0 = b.effect_ptr(1);
  const uint8_t* src1 = scalar ? nullptr : b.effect_ptr(2);
  uint8_t* dst = b.effect_ptr(scalar ? 2 : 3);
  uint8_t scalar_bytes[4];
  if (d == DType::Float16) {
    _Float16 h = static_cast<_Float16>(static_cast<float>(in[3].f));
    std::memcpy(scalar_bytes, &h, 2);
  } else {
    float f = static_cast<float>(in[3].f);
    std::memcpy(scalar_bytes, &f, 4);
  }
  for (int64_t i = 0; i < in[4].i; ++i) {
    bool take0 = (mask[i / 8] >> (i % 8)) & 1;
    std::memmove(dst + i * size, take0 ? src0 + i * size : (scalar ? scalar_bytes : src1 + i * size), size);
  }
}

}  // namespace

void exec_Compare(Block& b, const Op& op, const RtValue* in, RtValue*) { run_compare(b, op, in, false); }
void exec_CompareScalar(Block& b, const Op& op, const RtValue* in, RtValue*) { run_compare(b, op, in, true); }
void exec_Select(Block& b, const Op& op, const RtValue* in, RtValue*) { run_select(b, op, in, false); }
void exec_SelectScalar(Block& b, const Op& op, const RtValue* in, RtValue*) { run_select(b, op, in, true); }

}  // namespace asc::sim
