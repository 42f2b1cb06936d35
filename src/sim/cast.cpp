// cast(dst, src, round_mode, count): element conversion with the Ascend C
// round modes. Every source value is exact in long double; it is then rounded
// to the destination: integers by the mode and saturated (A2 conversions
// saturate on overflow; NaN, which the docs leave open, becomes 0); floating
// types by the mode between the two nearest representable neighbours.
#include <algorithm>
#include <cfenv>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "sim/handlers.h"
#include "sim/scalar_math.h"
#include "sim/vector_mask.h"

namespace asc::sim {
namespace {

enum Mode { kNone = 0, kRint, kFloor, kCeil, kRound, kTrunc, kOdd };
using Real = long double;

Real read(const uint8_t* p, DType d) {
  switch (d) {
    case DType::Int8: return *reinterpret_cast<const int8_t*>(p);
    case DType::UInt8: return *p;
    case DType::Int16: return *reinterpret_cast<const int16_t*>(p);
    case DType::Int32: return *reinterpret_cast<const int32_t*>(p);
    case DType::Int64: return static_cast<Real>(*reinterpret_cast<const int64_t*>(p));
    case DType::Float16: return static_cast<float>(*reinterpret_cast<const _Float16*>(p));
    case DType::BFloat16: {
      uint32_t bits = uint32_t{*reinterpret_cast<const uint16_t*>(p)} << 16;
      float f;
      std::memcpy(&f, &bits, 4);
      return f;
    }
    case DType::Float32: return *reinterpret_cast<const float*>(p);
    default: return 0;
  }
}

Real round_integral(Real x, Mode m) {
  switch (m) {
    case kFloor: return std::floor(x);
    case kCeil: return std::ceil(x);
    case kRound: return std::round(x);  // half away from zero
    case kTrunc: return std::trunc(x);
    default: return std::nearbyint(x);  // NONE / RINT: to nearest, ties to even
  }
}

template <typename I>
void write_int(uint8_t* p, Real x, Mode m) {
  I v;
  if (std::isnan(x)) {
    v = 0;
  } else {
    Real r = round_integral(x, m);
    if (r <= static_cast<Real>(std::numeric_limits<I>::min()))
      v = std::numeric_limits<I>::min();
    else if (r >= static_cast<Real>(std::numeric_limits<I>::max()))
      v = std::numeric_limits<I>::max();
    else
      v = static_cast<I>(r);
  }
  std::memcpy(p, &v, sizeof v);
}

// A floating format as its bit patterns: to/from Real and stepping to a neighbour.
struct Half {
  using Bits = uint16_t;
  static Real value(Bits b) {
    _Float16 h;
    std::memcpy(&h, &b, 2);
    return static_cast<float>(h);
  }
  static Bits nearest(Real x) {
    _Float16 h = static_cast<_Float16>(static_cast<float>(x));  // float is exact for every half neighbour
    Bits b;
    std::memcpy(&b, &h, 2);
    return b;
  }
};
struct BHalf {
  using Bits = uint16_t;
  static Real value(Bits b) {
    uint32_t bits = uint32_t{b} << 16;
    float f;
    std::memcpy(&f, &bits, 4);
    return f;
  }
  static Bits nearest(Real x) {
    float f = static_cast<float>(round_bf16(static_cast<double>(x)));
    uint32_t bits;
    std::memcpy(&bits, &f, 4);
    return static_cast<Bits>(bits >> 16);
  }
};
struct Single {
  using Bits = uint32_t;
  static Real value(Bits b) {
    float f;
    std::memcpy(&f, &b, 4);
    return f;
  }
  static Bits nearest(Real x) {
    float f = static_cast<float>(x);
    Bits b;
    std::memcpy(&b, &f, 4);
    return b;
  }
};

// The next representable value towards +inf (up) or -inf, on sign-magnitude bits.
template <typename F>
typename F::Bits step(typename F::Bits b, bool up) {
  using Bits = typename F::Bits;
  const Bits sign = Bits(1) << (8 * sizeof(Bits) - 1);
  bool negative = b & sign;
  if ((b & ~sign) == 0) return up ? Bits(1) : Bits(sign | 1);  // from +-0 to the smallest subnormal
  return (negative != up) ? Bits(b + 1) : Bits(b - 1);
}

template <typename F>
typename F::Bits round_float(Real x, Mode m) {
  using Bits = typename F::Bits;
  Bits b = F::nearest(x);  // NONE / RINT: to nearest, ties to even
  Real v = F::value(b);
  if (std::isnan(x) || std::isinf(v) || v == x || m == kNone || m == kRint) return b;
  Bits below = v < x ? b : step<F>(b, false), above = v > x ? b : step<F>(b, true);
  Real lo = F::value(below), hi = F::value(above);
  switch (m) {
    case kFloor: return below;
    case kCeil: return above;
    case kTrunc: return x > 0 ? below : above;
    case kRound: return (x - lo == hi - x) ? (x > 0 ? above : below) : b;  // ties away from zero
    case kOdd: return (below & 1) ? below : above;                         // the neighbour with an odd last bit
    default: return b;
  }
}

template <typename F>
void write_float(uint8_t* p, Real x, Mode m) {
  typename F::Bits b = round_float<F>(x, m);
  if constexpr (std::is_same_v<F, Half>) {
    // half results saturate on Atlas A2 (CTRL[48] = 0): a finite value never becomes inf
    if (std::isinf(F::value(b)) && std::isfinite(x)) b = x > 0 ? 0x7bff : 0xfbff;
  }
  std::memcpy(p, &b, sizeof b);
}

void write(uint8_t* p, DType d, Real x, Mode m) {
  switch (d) {
    case DType::Int8: return write_int<int8_t>(p, x, m);
    case DType::UInt8: return write_int<uint8_t>(p, x, m);
    case DType::Int16: return write_int<int16_t>(p, x, m);
    case DType::Int32: return write_int<int32_t>(p, x, m);
    case DType::Int64: return write_int<int64_t>(p, x, m);
    case DType::Float16: return write_float<Half>(p, x, m);
    case DType::BFloat16: return write_float<BHalf>(p, x, m);
    case DType::Float32: return write_float<Single>(p, x, m);
    default: return;
  }
}

}  // namespace

namespace {

struct Conversion {
  DType from, to;
  Mode mode;
  bool integral;  // float -> float rounds to an integral value (CAST_RINT and friends)
  Conversion(const Block& b, const Op& op)
      : from(b.kernel().type_of(op.operands[1]).dtype),
        to(b.kernel().type_of(op.operands[0]).dtype),
        mode(static_cast<Mode>(op.attr_int(attr_index(op.info(), "round_mode")))),
        integral(from == DType::Float32 && to == DType::Float32) {}
  void operator()(const uint8_t* src, uint8_t* dst) const {
    Real x = read(src, from);
    write(dst, to, integral ? round_integral(x, mode) : x, integral ? kNone : mode);
  }
};

}  // namespace

// scalar_cast: a float32 scalar to float16 (CAST_ODD) or int32 (CAST_RINT, CAST_FLOOR, CAST_CEIL, CAST_ROUND),
// by the vector Cast's rules (Ascend C ScalarCast: "the precision conversion rule is the same as that of Cast").
void exec_ScalarCast(Block& b, const Op& op, const RtValue* in, RtValue* out) {
  DType to = b.kernel().type_of(op.result).dtype;
  uint8_t bytes[8] = {};
  write(bytes, to, static_cast<Real>(static_cast<float>(in[0].f)), static_cast<Mode>(op.attr_int(1)));
  load_scalar(*out, to, bytes);
}

void exec_VCast(Block& b, const Op& op, const RtValue* in, RtValue*) {
  Conversion convert(b, op);
  const size_t in_size = dtype_size(convert.from), out_size = dtype_size(convert.to);
  for (int64_t i = 0; i < in[2].i; ++i) convert(b.effect_ptr(0) + i * in_size, b.effect_ptr(1) + i * out_size);
}

// Mask form: a repeat holds 256 bytes of the wider type; element e of each
// operand is in its block e / (32 / size), blocks and repeats strided per operand.
void exec_VCastMask(Block& b, const Op& op, const RtValue* in, RtValue*) {
  Conversion convert(b, op);
  const int64_t in_size = dtype_size(convert.from), out_size = dtype_size(convert.to);
  RepeatMask mask = repeat_mask(b, op, in, 2, 4, mask_dtype(b.kernel(), op));
  const int64_t per_repeat = 256 / std::max(in_size, out_size);
  auto at = [](int64_t r, int64_t e, int64_t size, int64_t blk, int64_t rep) {
    return (r * rep + (e / (32 / size)) * blk) * 32 + (e % (32 / size)) * size;
  };
  for (int64_t r = 0; r < mask.repeats; ++r)
    for (int64_t e = 0; e < per_repeat; ++e)
      if (mask.selects(r, e))
        convert(b.effect_ptr(0) + at(r, e, in_size, in[6].i, in[8].i),
                b.effect_ptr(1) + at(r, e, out_size, in[5].i, in[7].i));
}

}  // namespace asc::sim
