// The vector instructions of ir/vector_ops.def, both modes, every dtype.
//
// Count mode runs one tight loop over `count` contiguous elements. Mask mode
// walks repeats of 8 data blocks of 32 bytes: block b of repeat r of tensor k
// starts (r * rep_stride[k] + b * blk_stride[k]) blocks after the tensor, and
// element i of a repeat takes part when bit i of the 128-bit mask is set;
// elements left out keep their old value. Floating-point lanes compute in
// float and round once (exact for + - * / and sqrt in half precision); integer
// lanes wrap.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "sim/handlers.h"
#include "sim/host_cpu.h"
#include "sim/vector_mask.h"

namespace asc::sim {
namespace {

template <typename T>
constexpr bool kFloatLane = std::is_same_v<T, float> || std::is_same_v<T, _Float16>;

// The type a lane computes in: float for half and float, the type itself otherwise.
template <typename T>
using Calc = std::conditional_t<kFloatLane<T>, float, T>;

template <typename T>
T wrap(std::make_unsigned_t<T> v) {
  return static_cast<T>(v);
}

// One lane of each instruction: f(a, b, d) with a = src0/src, b = src1/scalar, d = dst's old value.
template <typename T, typename Body>
void with_lane(OpCode code, const Op& op, Body body) {
  using C = Calc<T>;
  using U = std::make_unsigned_t<std::conditional_t<kFloatLane<T>, int32_t, T>>;
  auto add = [](C a, C b) -> C {
    if constexpr (kFloatLane<T>)
      return a + b;
    else
      return wrap<T>(static_cast<U>(static_cast<U>(a) + static_cast<U>(b)));
  };
  auto sub = [](C a, C b) -> C {
    if constexpr (kFloatLane<T>)
      return a - b;
    else
      return wrap<T>(static_cast<U>(static_cast<U>(a) - static_cast<U>(b)));
  };
  auto mul = [](C a, C b) -> C {
    if constexpr (kFloatLane<T>)
      return a * b;
    else {
      using W = std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned, U>;
      return wrap<T>(static_cast<U>(static_cast<W>(static_cast<U>(a)) * static_cast<W>(static_cast<U>(b))));
    }
  };
  auto relu = [](C x) -> C { return x > C(0) ? x : C(0); };
  switch (code) {
    case OpCode::VAdd: return body([=](C a, C b, C) { return add(a, b); });
    case OpCode::VSub: return body([=](C a, C b, C) { return sub(a, b); });
    case OpCode::VMul: return body([=](C a, C b, C) { return mul(a, b); });
    case OpCode::VDiv: return body([](C a, C b, C) { return a / b; });
    case OpCode::VMax: return body([](C a, C b, C) { return a > b ? a : b; });
    case OpCode::VMin: return body([](C a, C b, C) { return a < b ? a : b; });
    case OpCode::VAddRelu: return body([=](C a, C b, C) { return relu(add(a, b)); });
    case OpCode::VSubRelu: return body([=](C a, C b, C) { return relu(sub(a, b)); });
    case OpCode::VMulAddDst: return body([=](C a, C b, C d) { return add(mul(a, b), d); });
    case OpCode::VFusedMulAdd: return body([=](C a, C b, C d) { return add(mul(a, d), b); });
    case OpCode::VFusedMulAddRelu: return body([=](C a, C b, C d) { return relu(add(mul(a, d), b)); });
    case OpCode::VAdds: return body([=](C a, C s, C) { return add(a, s); });
    case OpCode::VMuls: return body([=](C a, C s, C) { return mul(a, s); });
    case OpCode::VMaxs: return body([](C a, C s, C) { return a > s ? a : s; });
    case OpCode::VMins: return body([](C a, C s, C) { return a < s ? a : s; });
    case OpCode::VRelu: return body([=](C a, C, C) { return relu(a); });
    case OpCode::VCopy: return body([](C a, C, C) { return a; });
    case OpCode::VDuplicate: return body([](C, C s, C) { return s; });
    default: break;
  }
  if constexpr (kFloatLane<T>) {
    switch (code) {
      case OpCode::VExp: return body([](C a, C, C) { return std::exp(a); });
      case OpCode::VLn: return body([](C a, C, C) { return std::log(a); });
      case OpCode::VAbs: return body([](C a, C, C) { return std::fabs(a); });
      case OpCode::VSqrt: return body([](C a, C, C) { return std::sqrt(a); });
      case OpCode::VRsqrt: return body([](C a, C, C) { return 1.0f / std::sqrt(a); });
      case OpCode::VReciprocal: return body([](C a, C, C) { return 1.0f / a; });
      case OpCode::VLeakyRelu: return body([](C a, C s, C) { return a >= 0 ? a : a * s; });
      case OpCode::VAxpy: return body([](C a, C s, C d) { return a * s + d; });
      default: break;
    }
  } else {
    constexpr int bits = 8 * sizeof(T);
    switch (code) {
      case OpCode::VAnd: return body([](C a, C b, C) { return static_cast<C>(a & b); });
      case OpCode::VOr: return body([](C a, C b, C) { return static_cast<C>(a | b); });
      case OpCode::VNot: return body([](C a, C, C) { return static_cast<C>(~a); });
      case OpCode::VShiftLeft:
        return body(
            [](C a, C s, C) { return s < 0 || s >= bits ? C(0) : wrap<T>(static_cast<U>(static_cast<U>(a) << s)); });
      case OpCode::VShiftRight:  // arithmetic for signed types, logical for unsigned
        return body([](C a, C s, C) {
          if (s < 0 || s >= bits) return std::is_signed_v<T> && a < 0 ? C(-1) : C(0);
          return static_cast<C>(a >> s);
        });
      default: break;
    }
  }
  fail(ASC_ERR_INTERNAL, op.loc, "{} has no {} lane", op.info().name, kFloatLane<T> ? "float" : "integer");
}

// The operands of one instruction instance, resolved.
struct Operands {
  uint8_t* dst = nullptr;
  const uint8_t* src0 = nullptr;  // all but FILL
  const uint8_t* src1 = nullptr;  // BINARY only
  double scalar_f = 0;            // SCALAR and FILL only
  int64_t scalar_i = 0;
};

template <typename T>
T load(const uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

template <typename T>
void store(uint8_t* p, T v) {
  std::memcpy(p, &v, sizeof v);
}

// Half results saturate, the Atlas A2 default (CTRL[48] = 0, see the Ascend C
// SetCtrlSpr page): infinities become +-65504 and NaN becomes 0.
template <typename T, typename C>
T narrow(C v) {
  if constexpr (std::is_same_v<T, _Float16>) {
    if (std::isnan(v)) return T(0);
    if (v > 65504.0f || v < -65504.0f) {
      _Float16 h = static_cast<_Float16>(v);  // rounds first: values that round to 65504 stay finite
      if (std::isinf(static_cast<float>(h))) return static_cast<T>(v > 0 ? 65504.0f : -65504.0f);
      return h;
    }
  }
  return static_cast<T>(v);
}

template <typename T>
Calc<T> scalar_of(const Operands& o) {
  if constexpr (kFloatLane<T>)
    return static_cast<float>(o.scalar_f);
  else
    return static_cast<T>(o.scalar_i);
}

// The count form: one loop per operand shape, so the compiler sees a plain
// element-wise loop (and vectorises it) with no per-element branches; the
// dst load disappears for the lanes that do not read it.
template <typename T, typename F>
__attribute__((always_inline)) inline void count_loop_body(const Operands& o, int64_t n, F f) {
  using C = Calc<T>;
  const C s = scalar_of<T>(o);
  uint8_t* d = o.dst;
  const uint8_t *a = o.src0, *b = o.src1;
  if (a && b) {
    for (int64_t i = 0; i < n; ++i)
      store<T>(d + i * sizeof(T),
               narrow<T>(f(static_cast<C>(load<T>(a + i * sizeof(T))), static_cast<C>(load<T>(b + i * sizeof(T))),
                           static_cast<C>(load<T>(d + i * sizeof(T))))));
  } else if (a) {
    for (int64_t i = 0; i < n; ++i)
      store<T>(d + i * sizeof(T),
               narrow<T>(f(static_cast<C>(load<T>(a + i * sizeof(T))), s, static_cast<C>(load<T>(d + i * sizeof(T))))));
  } else {
    for (int64_t i = 0; i < n; ++i)
      store<T>(d + i * sizeof(T), narrow<T>(f(C(0), s, static_cast<C>(load<T>(d + i * sizeof(T))))));
  }
}

// The same loop vectorised eight floats wide where the host has AVX2 (picked at run time, as copy_bytes does): the
// lanes are the same IEEE operations either way (no FMA: a multiply and an add still round apart), so the results
// are too.
#if ASC_SIM_AVX2
template <typename T, typename F>
__attribute__((target("avx2"))) void count_loop_avx2(const Operands& o, int64_t n, F f) {
  count_loop_body<T>(o, n, f);
}
#endif

template <typename T, typename F>
void count_loop(const Operands& o, int64_t n, F f) {
#if ASC_SIM_AVX2
  if (host_has_avx2()) return count_loop_avx2<T>(o, n, f);
#endif
  count_loop_body<T>(o, n, f);
}

struct MaskShape {
  RepeatMask mask;
  int64_t blk[3], rep[3];  // dst, src0, src1, in blocks
};

template <typename T, typename F>
void mask_loop(const Operands& o, const MaskShape& m, F f) {
  using C = Calc<T>;
  constexpr int64_t per_block = 32 / sizeof(T);
  C s = scalar_of<T>(o);
  for (int64_t r = 0; r < m.mask.repeats; ++r)
    for (int64_t blk = 0; blk < 8; ++blk) {
      uint8_t* d = o.dst + (r * m.rep[0] + blk * m.blk[0]) * 32;
      const uint8_t* a = o.src0 ? o.src0 + (r * m.rep[1] + blk * m.blk[1]) * 32 : nullptr;
      const uint8_t* b = o.src1 ? o.src1 + (r * m.rep[2] + blk * m.blk[2]) * 32 : nullptr;
      for (int64_t e = 0; e < per_block; ++e) {
        int64_t i = blk * per_block + e;
        if (!m.mask.selects(r, i)) continue;
        C av = a ? static_cast<C>(load<T>(a + e * sizeof(T))) : C(0);
        C bv = b ? static_cast<C>(load<T>(b + e * sizeof(T))) : s;
        C dv = static_cast<C>(load<T>(d + e * sizeof(T)));
        store<T>(d + e * sizeof(T), narrow<T>(f(av, bv, dv)));
      }
    }
}

OpCode count_code(OpCode code) {
  switch (code) {
#define VEC(family, id, name, ascendc, dtypes, cost, reads_dst, doc, params) \
  case OpCode::id##Mask:                                                     \
    return OpCode::id;
#include "ir/vector_ops.def"
#undef VEC
    default: return code;
  }
}

template <typename T>
void run_typed(Block& b, const Op& op, const RtValue* in) {
  const OpInfo& info = op.info();
  size_t tensors = vector_tensors(info.family);
  size_t base = tensors + (vector_has_scalar(info.family) ? 1 : 0);
  Operands o;
  // Effects list the source reads first and the dst write last; find each tensor's pointer.
  for (size_t i = 0; i < info.effects.size(); ++i) {
    uint8_t* p = b.effect_ptr(i);
    switch (info.effects[i].tensor) {
      case 0: o.dst = p; break;
      case 1: o.src0 = p; break;
      default: o.src1 = p; break;
    }
  }
  if (vector_has_scalar(info.family)) {
    o.scalar_f = in[tensors].f;
    o.scalar_i = in[tensors].i;
  }
  auto run = [&](auto f) {
    if (!info.mask_mode) return count_loop<T>(o, in[base].i, f);
    MaskShape m{};
    m.mask = repeat_mask(b, op, in, base, base + 2, b.kernel().type_of(op.operands[0]).dtype);
    for (size_t k = 0; k < tensors; ++k) {
      m.blk[k] = in[base + 3 + k].i;
      m.rep[k] = in[base + 3 + tensors + k].i;
    }
    mask_loop<T>(o, m, f);
  };
  with_lane<T>(count_code(op.code), op, run);
}

}  // namespace

void run_vector(Block& b, const Op& op, const RtValue* in) {
  switch (b.kernel().type_of(op.operands[0]).dtype) {
    case DType::Float32: return run_typed<float>(b, op, in);
    case DType::Float16: return run_typed<_Float16>(b, op, in);
    case DType::Int16: return run_typed<int16_t>(b, op, in);
    case DType::UInt16: return run_typed<uint16_t>(b, op, in);
    case DType::Int32: return run_typed<int32_t>(b, op, in);
    case DType::UInt32: return run_typed<uint32_t>(b, op, in);
    default: fail(ASC_ERR_INTERNAL, op.loc, "{}: dtype passed the verifier but has no kernel", op.info().name);
  }
}

#define VEC(family, id, name, ascendc, dtypes, cost, reads_dst, doc, params)                     \
  void exec_##id(Block& b, const Op& op, const RtValue* in, RtValue*) { run_vector(b, op, in); } \
  void exec_##id##Mask(Block& b, const Op& op, const RtValue* in, RtValue*) { run_vector(b, op, in); }
#include "ir/vector_ops.def"
#undef VEC

}  // namespace asc::sim
