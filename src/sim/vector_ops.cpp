// Vector unit, count mode: elementwise binary ops over `count` elements.
// Each op is one tight loop per dtype; effects 0/1 are src0/src1, 2 is dst.
// fp16 is computed in float and rounded once, which is exact for + - * /
// (float carries more than 2*11+2 bits), matching the hardware's IEEE result.
#include <algorithm>
#include <cstdint>

#include "sim/handlers.h"

namespace asc::sim {
namespace {

template <typename T, typename F>
void apply(Block& b, int64_t n, F f) {
  const T* x = reinterpret_cast<const T*>(b.effect_ptr(0));
  const T* y = reinterpret_cast<const T*>(b.effect_ptr(1));
  T* z = reinterpret_cast<T*>(b.effect_ptr(2));
  for (int64_t i = 0; i < n; ++i) z[i] = f(x[i], y[i]);
}

// Integer lanes wrap (two's complement), computed without signed overflow.
template <typename T>
T wrap_add(T a, T b) {
  using U = std::make_unsigned_t<T>;
  return static_cast<T>(static_cast<U>(static_cast<U>(a) + static_cast<U>(b)));
}
template <typename T>
T wrap_sub(T a, T b) {
  using U = std::make_unsigned_t<T>;
  return static_cast<T>(static_cast<U>(static_cast<U>(a) - static_cast<U>(b)));
}
template <typename T>
T wrap_mul(T a, T b) {
  using U = std::make_unsigned_t<T>;
  using Wide = std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned, U>;
  return static_cast<T>(static_cast<U>(static_cast<Wide>(static_cast<U>(a)) * static_cast<Wide>(static_cast<U>(b))));
}

// Dispatches on the op's dtype; Fn is a generic lambda applied per lane.
template <typename FloatFn, typename IntFn>
void dispatch(Block& b, const Op& op, const RtValue* in, FloatFn ff, IntFn fi) {
  int64_t n = in[3].i;
  switch (b.kernel().type_of(op.operands[0]).dtype) {
    case DType::Float32: return apply<float>(b, n, ff);
    case DType::Float16:
      return apply<_Float16>(b, n, [&](_Float16 x, _Float16 y) {
        return static_cast<_Float16>(ff(static_cast<float>(x), static_cast<float>(y)));
      });
    case DType::Int16: return apply<int16_t>(b, n, fi);
    case DType::Int32: return apply<int32_t>(b, n, fi);
    default: fail(ASC_ERR_INTERNAL, op.loc, "{}: dtype passed the verifier but has no kernel", op.info().name);
  }
}

}  // namespace

void exec_VAdd(Block& b, const Op& op, const RtValue* in, RtValue*) {
  dispatch(
      b, op, in, [](float x, float y) { return x + y; }, [](auto x, auto y) { return wrap_add(x, y); });
}
void exec_VSub(Block& b, const Op& op, const RtValue* in, RtValue*) {
  dispatch(
      b, op, in, [](float x, float y) { return x - y; }, [](auto x, auto y) { return wrap_sub(x, y); });
}
void exec_VMul(Block& b, const Op& op, const RtValue* in, RtValue*) {
  dispatch(
      b, op, in, [](float x, float y) { return x * y; }, [](auto x, auto y) { return wrap_mul(x, y); });
}
void exec_VDiv(Block& b, const Op& op, const RtValue* in, RtValue*) {
  // The verifier admits float dtypes only; the integer lane is never taken.
  dispatch(
      b, op, in, [](float x, float y) { return x / y; }, [](auto x, auto) { return x; });
}
void exec_VMax(Block& b, const Op& op, const RtValue* in, RtValue*) {
  dispatch(
      b, op, in, [](float x, float y) { return x > y ? x : y; }, [](auto x, auto y) { return x > y ? x : y; });
}
void exec_VMin(Block& b, const Op& op, const RtValue* in, RtValue*) {
  dispatch(
      b, op, in, [](float x, float y) { return x < y ? x : y; }, [](auto x, auto y) { return x < y ? x : y; });
}

}  // namespace asc::sim
