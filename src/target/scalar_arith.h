// Scalar arithmetic of each dtype: two's-complement wrap to the dtype's width,
// floating-point rounding, the scalar unit's division, shifts and address
// moves, and the bytes of one element in memory. The Model's scalar ops, the
// Ascend C emitter's constants and the NPU launcher's argument block all use
// these, so that they agree bit for bit.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "ir/types.h"

namespace asc {

inline int64_t wrap_to(int64_t v, DType d) {
  switch (d) {
    case DType::Bool: return v != 0;
    case DType::Int8: return static_cast<int8_t>(v);
    case DType::UInt8: return static_cast<uint8_t>(v);
    case DType::Int16: return static_cast<int16_t>(v);
    case DType::UInt16: return static_cast<uint16_t>(v);
    case DType::Int32: return static_cast<int32_t>(v);
    case DType::UInt32: return static_cast<uint32_t>(v);
    default: return v;  // 64-bit: the bit pattern is the value
  }
}

inline double round_bf16(double v) {
  float f = static_cast<float>(v);
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  if ((bits & 0x7f800000u) != 0x7f800000u) bits += 0x7fffu + ((bits >> 16) & 1u);  // round to nearest even
  bits &= 0xffff0000u;
  std::memcpy(&f, &bits, 4);
  return f;
}

inline double round_to(double v, DType d) {
  switch (d) {
    case DType::Float32: return static_cast<float>(v);
    case DType::Float16: return static_cast<float>(static_cast<_Float16>(static_cast<float>(v)));
    case DType::BFloat16: return round_bf16(v);
    default: return v;
  }
}

// A half or float element as float (reductions, compare).
inline float load_float(const uint8_t* p, DType d) {
  if (d == DType::Float16) return static_cast<float>(*reinterpret_cast<const _Float16*>(p));
  float f;
  std::memcpy(&f, p, 4);
  return f;
}

template <typename T>
void store_as(uint8_t* p, T v) {
  std::memcpy(p, &v, sizeof v);
}

// One element as the dtype's bytes: the low bytes of an integer, a float
// rounded to the dtype.
inline void store_int(uint8_t* p, DType d, int64_t v) {
  switch (d) {
    case DType::Int16:
    case DType::UInt16: return store_as(p, static_cast<uint16_t>(v));
    case DType::Int32:
    case DType::UInt32: return store_as(p, static_cast<uint32_t>(v));
    case DType::Int64:
    case DType::UInt64: return store_as(p, v);
    default: return store_as(p, static_cast<uint8_t>(v));  // bool, int8, uint8
  }
}

inline void store_float(uint8_t* p, DType d, double v) {
  switch (d) {
    case DType::Float16: return store_as(p, static_cast<_Float16>(static_cast<float>(v)));
    case DType::BFloat16: {
      float f = static_cast<float>(round_bf16(v));
      uint32_t bits;
      std::memcpy(&bits, &f, 4);
      return store_as(p, static_cast<uint16_t>(bits >> 16));
    }
    default: return store_as(p, static_cast<float>(v));  // float32
  }
}

// A scalar kernel argument (its integer or floating-point value, by dtype) as
// the dtype's bytes, wrapped or rounded first.
inline void store_arg_scalar(uint8_t* p, DType d, int64_t i, double f) {
  if (dtype_is_float(d))
    store_float(p, d, round_to(f, d));
  else
    store_int(p, d, wrap_to(i, d));
}

inline int64_t wrapping_add(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
}
inline int64_t wrapping_neg(int64_t a) { return static_cast<int64_t>(0ull - static_cast<uint64_t>(a)); }
inline int64_t wrapping_mul(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
}

// A tensor address moved by `elements` of `size` bytes. Kernels compute these from any scalar: an address past
// 64 bits becomes INT64_MIN, which the bounds check at the access rejects like any negative address (wrapping
// instead could land back inside the buffer).
inline int64_t moved_address(int64_t addr, int64_t elements, size_t size) {
  int64_t bytes, moved;
  if (__builtin_mul_overflow(elements, static_cast<int64_t>(size), &bytes) ||
      __builtin_add_overflow(addr, bytes, &moved))
    return INT64_MIN;
  return moved;
}

inline int64_t floor_div(int64_t a, int64_t b, bool is_signed) {
  if (!is_signed) return static_cast<int64_t>(static_cast<uint64_t>(a) / static_cast<uint64_t>(b));
  if (a == INT64_MIN && b == -1) return a;  // wraps, as the 64-bit hardware would
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

inline int64_t floor_mod(int64_t a, int64_t b, bool is_signed) {
  if (!is_signed) return static_cast<int64_t>(static_cast<uint64_t>(a) % static_cast<uint64_t>(b));
  if (b == -1) return 0;
  int64_t r = a % b;
  return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}

inline int64_t shift_left(int64_t a, int64_t s, uint32_t bits) {
  if (s < 0 || s >= static_cast<int64_t>(bits)) return 0;
  return static_cast<int64_t>(static_cast<uint64_t>(a) << s);
}

inline int64_t shift_right(int64_t a, int64_t s, uint32_t bits, bool is_signed) {
  if (s < 0) return 0;
  if (s >= static_cast<int64_t>(bits)) return is_signed && a < 0 ? -1 : 0;
  if (is_signed) return a >> s;
  uint64_t mask = bits == 64 ? ~0ull : ((1ull << bits) - 1);
  return static_cast<int64_t>((static_cast<uint64_t>(a) & mask) >> s);
}

}  // namespace asc
