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

// ---- conversions with arithmetic, and DEQSCALE (the rows' comment in ir/ops_vector.cpp cites the docs) ----
// add_relu_cast, sub_relu_cast and mul_cast compute in the source dtype (the sum or product rounded to it, as
// the dtype's own instruction does), then convert as cast with CAST_NONE does: to nearest, saturating (half
// results never become inf from a finite value, integers clamp). add_deq_relu and cast_deq from int32 convert
// the int32 to float, multiply by the half scale in float and round to half; cast_deq from int16 rounds
// src * scale to an integer, clamps it to the 9-bit range, adds the offset and saturates to int8 (sign mode)
// or uint8, as the Model's fixpipe quantisation (cube_ops.cpp) does.

namespace {

const char* deq_kind_text(DeqScaleReg::Kind k) {
  switch (k) {
    case DeqScaleReg::HalfScale: return "a half scale (set_deq_scale(scale))";
    case DeqScaleReg::Quant: return "a scale, offset and sign mode (set_deq_scale(scale, offset, sign_mode))";
    case DeqScaleReg::Vector: return "16 groups (set_deq_scale(vdeq, vdeq_info))";
    default: return "nothing: set_deq_scale has not run on this core";
  }
}

// The register the running op saw, which must hold `want`.
const DeqScaleReg& deq_for(const Block& b, const Op& op, DeqScaleReg::Kind want, const char* use) {
  const DeqScaleReg& r = b.issued_deq();
  if (r.kind != want)
    fail(ASC_ERR_INVALID_ARGUMENT, op.loc, "{}: {} reads {} from DEQSCALE, but it holds {}", op.info().name, use,
         deq_kind_text(want), deq_kind_text(r.kind));
  return r;
}

template <typename T>
T load_as(const uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

// src0 (op) src1 in the source dtype, as a Real.
Real fused_lane(OpCode code, DType src, const uint8_t* a, const uint8_t* b) {
  const bool mul = code == OpCode::VMulCast || code == OpCode::VMulCastMask;
  const bool sub = code == OpCode::VSubReluCast || code == OpCode::VSubReluCastMask;
  Real r;
  switch (src) {
    case DType::Float32: {
      float x = load_as<float>(a), y = load_as<float>(b);
      r = mul ? x * y : sub ? x - y : x + y;
      break;
    }
    case DType::Float16: {
      _Float16 x = load_as<_Float16>(a), y = load_as<_Float16>(b);
      // half arithmetic: exact in float, rounded once to half
      r = static_cast<float>(static_cast<_Float16>(mul   ? static_cast<float>(x) * static_cast<float>(y)
                                                   : sub ? static_cast<float>(x) - static_cast<float>(y)
                                                         : static_cast<float>(x) + static_cast<float>(y)));
      break;
    }
    case DType::Int16: {  // integer lanes wrap
      uint16_t x = load_as<uint16_t>(a), y = load_as<uint16_t>(b);
      r = static_cast<int16_t>(static_cast<uint16_t>(sub ? x - y : x + y));
      break;
    }
    default: {  // int32 (add_deq_relu)
      uint32_t x = load_as<uint32_t>(a), y = load_as<uint32_t>(b);
      r = static_cast<int32_t>(x + y);
    }
  }
  if (mul) return r;
  return r > 0 ? r : Real(0);  // relu (NaN -> 0, as relu)
}

// x (an int32 value) * the half scale, in float, rounded to half; relu for add_deq_relu.
Real deq_to_half(Real x, float scale, bool relu) {
  float f = static_cast<float>(x) * scale;
  if (relu && !(f > 0)) f = 0;
  return f;
}

struct FusedShape {
  DType from, to;
  int64_t in_size, out_size;
  FusedShape(const Block& b, const Op& op)
      : from(b.kernel().type_of(op.operands[1]).dtype),
        to(b.kernel().type_of(op.operands[0]).dtype),
        in_size(dtype_size(from)),
        out_size(dtype_size(to)) {}
};

// Byte offset of element e of repeat r in an operand of `size`-byte elements (a repeat: 256 bytes of the wider
// dtype, element e in block e / (32 / size)).
int64_t at(int64_t r, int64_t e, int64_t size, int64_t blk, int64_t rep) {
  return (r * rep + (e / (32 / size)) * blk) * 32 + (e % (32 / size)) * size;
}

void fused_element(const Block& b, const Op& op, const FusedShape& s, const uint8_t* a, const uint8_t* c, uint8_t* d) {
  Real r = fused_lane(op.code, s.from, a, c);
  if (op.code == OpCode::VAddDeqRelu || op.code == OpCode::VAddDeqReluMask)
    r = deq_to_half(r, b.issued_deq().groups[0].scale, true);
  write(d, s.to, r, kNone);
}

void run_fused(Block& b, const Op& op, const RtValue* in) {
  FusedShape s(b, op);
  if (op.code == OpCode::VAddDeqRelu || op.code == OpCode::VAddDeqReluMask)
    deq_for(b, op, DeqScaleReg::HalfScale, "add_deq_relu");
  const uint8_t *src0 = b.effect_ptr(0), *src1 = b.effect_ptr(1);
  uint8_t* dst = b.effect_ptr(2);
  if (!op.info().mask_mode) {
    for (int64_t i = 0; i < in[3].i; ++i)
      fused_element(b, op, s, src0 + i * s.in_size, src1 + i * s.in_size, dst + i * s.out_size);
    return;
  }
  RepeatMask mask = repeat_mask(b, op, in, 3, 5, mask_dtype(b.kernel(), op));
  const int64_t per_repeat = 256 / std::max(s.in_size, s.out_size);
  for (int64_t r = 0; r < mask.repeats; ++r)
    for (int64_t e = 0; e < per_repeat; ++e)
      if (mask.selects(r, e))
        fused_element(b, op, s, src0 + at(r, e, s.in_size, in[7].i, in[10].i),
                      src1 + at(r, e, s.in_size, in[8].i, in[11].i), dst + at(r, e, s.out_size, in[6].i, in[9].i));
}

}  // namespace

void exec_VAddReluCast(Block& b, const Op& op, const RtValue* in, RtValue*) { run_fused(b, op, in); }
void exec_VAddReluCastMask(Block& b, const Op& op, const RtValue* in, RtValue*) { run_fused(b, op, in); }
void exec_VSubReluCast(Block& b, const Op& op, const RtValue* in, RtValue*) { run_fused(b, op, in); }
void exec_VSubReluCastMask(Block& b, const Op& op, const RtValue* in, RtValue*) { run_fused(b, op, in); }
void exec_VMulCast(Block& b, const Op& op, const RtValue* in, RtValue*) { run_fused(b, op, in); }
void exec_VMulCastMask(Block& b, const Op& op, const RtValue* in, RtValue*) { run_fused(b, op, in); }
void exec_VAddDeqRelu(Block& b, const Op& op, const RtValue* in, RtValue*) { run_fused(b, op, in); }
void exec_VAddDeqReluMask(Block& b, const Op& op, const RtValue* in, RtValue*) { run_fused(b, op, in); }

namespace {

// cast_deq of one element: int16 by group g of DEQSCALE, int32 by the half scale.
void deq_element(const Op& op, const FusedShape& s, const DeqScaleReg& reg, int64_t group, const uint8_t* src,
                 uint8_t* dst) {
  if (s.from == DType::Int32) {
    write(dst, DType::Float16, deq_to_half(load_as<int32_t>(src), reg.groups[0].scale, false), kNone);
    return;
  }
  const DeqScaleReg::Group& g = reg.groups[group];
  if (g.sign != (s.to == DType::Int8))
    fail(ASC_ERR_INVALID_ARGUMENT, op.loc,
         "cast_deq: dst holds {} but the sign mode of DEQSCALE{} is {} ({} results): set sign_mode={} for {}",
         dtype_name(s.to), reg.kind == DeqScaleReg::Vector ? fmt::format(" group {}", group) : std::string(),
         g.sign ? "True" : "False", g.sign ? "int8" : "uint8", g.sign ? "False" : "True", dtype_name(s.to));
  double x = static_cast<double>(static_cast<float>(load_as<int16_t>(src)) * g.scale);
  double q = std::clamp(std::nearbyint(x), -256.0, 255.0) + g.offset;
  int64_t v = static_cast<int64_t>(std::clamp(q, g.sign ? -128.0 : 0.0, g.sign ? 127.0 : 255.0));
  *dst = static_cast<uint8_t>(v);
}

void run_cast_deq(Block& b, const Op& op, const RtValue* in) {
  FusedShape s(b, op);
  const bool mask_mode = op.info().mask_mode;
  const size_t attrs = mask_mode ? 1 : 0;
  const bool vec = op.attr_int(attrs) != 0, lower = op.attr_int(attrs + 1) != 0;
  const DeqScaleReg& reg = s.from == DType::Int32 ? deq_for(b, op, DeqScaleReg::HalfScale, "cast_deq from int32")
                           : vec                  ? deq_for(b, op, DeqScaleReg::Vector, "cast_deq with is_vec_deq=True")
                                 : deq_for(b, op, DeqScaleReg::Quant, "cast_deq with is_vec_deq=False");
  const uint8_t* src = b.effect_ptr(0);
  uint8_t* dst = b.effect_ptr(1);
  // int16: the 16 results of source block k fill half of destination block k; int32: one half per element
  auto dst_at = [&](int64_t r, int64_t e, int64_t blk, int64_t rep) {
    if (s.from == DType::Int32) return at(r, e, 2, blk, rep);
    return (r * rep + (e / 16) * blk) * 32 + (lower ? 0 : 16) + e % 16;
  };
  if (!mask_mode) {
    for (int64_t i = 0; i < in[2].i; ++i)
      deq_element(op, s, reg, vec ? i % 16 : 0, src + i * s.in_size, dst + dst_at(0, i, 1, 0));
    return;
  }
  RepeatMask mask = repeat_mask(b, op, in, 2, 4, mask_dtype(b.kernel(), op));
  const int64_t per_repeat = 256 / s.in_size;
  for (int64_t r = 0; r < mask.repeats; ++r)
    for (int64_t e = 0; e < per_repeat; ++e)
      if (mask.selects(r, e))
        deq_element(op, s, reg, vec ? e % 16 : 0, src + at(r, e, s.in_size, in[6].i, in[8].i),
                    dst + dst_at(r, e, in[5].i, in[7].i));
}

// The 9-bit offset of DEQSCALE: the low 9 bits, signed.
int16_t offset9(int64_t v) {
  int64_t low = v & 0x1ff;
  return static_cast<int16_t>(low >= 256 ? low - 512 : low);
}

}  // namespace

void exec_VCastDeq(Block& b, const Op& op, const RtValue* in, RtValue*) { run_cast_deq(b, op, in); }
void exec_VCastDeqMask(Block& b, const Op& op, const RtValue* in, RtValue*) { run_cast_deq(b, op, in); }

void exec_SetDeqScale(Block& b, const Op&, const RtValue* in, RtValue*) {
  DeqScaleReg& r = b.deq_register();
  r.kind = DeqScaleReg::HalfScale;
  r.groups[0] = {static_cast<float>(static_cast<_Float16>(static_cast<float>(in[0].f))), 0, false};
}
void exec_SetDeqScaleQuant(Block& b, const Op&, const RtValue* in, RtValue*) {
  DeqScaleReg& r = b.deq_register();
  r.kind = DeqScaleReg::Quant;
  r.groups[0] = {static_cast<float>(in[0].f), offset9(in[1].i), in[2].i != 0};
}
// The 16 groups, and vdeq's 16 words: the scale's float bits, the 9-bit offset at bit 37 and the sign mode at
// bit 46 (the layout of the fixpipe quantisation word).
void exec_SetDeqScaleVector(Block& b, const Op&, const RtValue* in, RtValue*) {
  DeqScaleReg& r = b.deq_register();
  r.kind = DeqScaleReg::Vector;
  for (int g = 0; g < 16; ++g) {
    r.groups[g] = {static_cast<float>(in[2 + g].f), offset9(in[18 + g].i), in[34 + g].i != 0};
    uint32_t bits;
    std::memcpy(&bits, &r.groups[g].scale, 4);
    uint64_t word =
        bits | (static_cast<uint64_t>(in[18 + g].i & 0x1ff) << 37) | (static_cast<uint64_t>(r.groups[g].sign) << 46);
    std::memcpy(b.effect_ptr(0) + g * 8, &word, 8);
  }
}

}  // namespace asc::sim
