// A CPU implementation of the part of the Ascend C API that asc's emitter
// (src/codegen) uses, for proving emitted kernels without an NPU: the emitted
// file compiles against this header with the host compiler, and every API call
// runs as one IR op on the Model simulator's instruction implementations
// (libasc_cpu.so, asc_cpu_runtime.h). Scalar code runs natively. Test tree only.
#pragma once

#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "asc_cpu_runtime.h"

#define __global__
#define __aicore__
#define __gm__
#define KERNEL_TASK_TYPE_DEFAULT(type) ((void)0)  // the harness passes the kernel type to the launch
#define ASCEND_IS_AIC (::ascendc_cpu::is_aic())
#define ASCEND_IS_AIV (!::ascendc_cpu::is_aic())

using GM_ADDR = uint8_t*;
using half = _Float16;

// bfloat16 scalars: float arithmetic, rounded to nearest even on conversion.
struct bfloat16_t {
  uint16_t bits = 0;
  bfloat16_t() = default;
  bfloat16_t(double v) {  // NOLINT: converts like the device type
    float f = static_cast<float>(v);
    uint32_t b;
    std::memcpy(&b, &f, 4);
    if ((b & 0x7f800000u) != 0x7f800000u) b += 0x7fffu + ((b >> 16) & 1u);
    bits = static_cast<uint16_t>(b >> 16);
  }
  operator float() const {  // NOLINT
    uint32_t b = static_cast<uint32_t>(bits) << 16;
    float f;
    std::memcpy(&f, &b, 4);
    return f;
  }
};

enum pipe_t {
  PIPE_S = 0,
  PIPE_V = 1,
  PIPE_M = 2,
  PIPE_MTE1 = 3,
  PIPE_MTE2 = 4,
  PIPE_MTE3 = 5,
  PIPE_ALL = 6,
  PIPE_FIX = 10
};

// Ascend 950's buffer tokens (CCE intrinsics): the calls already run one after another
inline void get_buf(pipe_t, uint64_t, bool) {}
inline void rls_buf(pipe_t, uint64_t, bool) {}

namespace AscendC {

using ascendc_cpu::Operand;

// asc_dtype_t of an element type.
template <typename T>
struct DtypeOf;
#define ASC_CPU_DTYPE(T, code)             \
  template <>                              \
  struct DtypeOf<T> {                      \
    static constexpr uint8_t value = code; \
  };
ASC_CPU_DTYPE(bool, 0)
ASC_CPU_DTYPE(int8_t, 1)
ASC_CPU_DTYPE(uint8_t, 2)
ASC_CPU_DTYPE(int16_t, 3)
ASC_CPU_DTYPE(uint16_t, 4)
ASC_CPU_DTYPE(int32_t, 5)
ASC_CPU_DTYPE(uint32_t, 6)
ASC_CPU_DTYPE(int64_t, 7)
ASC_CPU_DTYPE(uint64_t, 8)
ASC_CPU_DTYPE(half, 9)
ASC_CPU_DTYPE(bfloat16_t, 10)
ASC_CPU_DTYPE(float, 11)
#undef ASC_CPU_DTYPE

template <typename T>
constexpr bool kIsFloat = DtypeOf<T>::value >= 9;

template <typename T>
Operand scalar(T v) {
  Operand o;
  o.dtype = DtypeOf<T>::value;
  if constexpr (kIsFloat<T>)
    o.f = static_cast<double>(static_cast<float>(v));
  else
    o.i = static_cast<int64_t>(v);
  return o;
}

template <typename T>
T from_operand(const Operand& o) {
  if constexpr (kIsFloat<T>)
    return static_cast<T>(o.f);
  else
    return static_cast<T>(o.i);
}

inline Operand run(const char* name, std::initializer_list<Operand> operands,
                   std::initializer_list<int64_t> attrs = {}) {
  return ascendc_cpu::call(name, operands.begin(), operands.size(), attrs.begin(), attrs.size());
}

enum class TPosition : uint8_t { GM = 0, A1, A2, B1, B2, C1, C2, CO1, CO2, VECIN, VECOUT, VECCALC, MAX };
enum class RoundMode : int { CAST_NONE = 0, CAST_RINT, CAST_FLOOR, CAST_CEIL, CAST_ROUND, CAST_TRUNC, CAST_ODD };
enum class MaskMode : int { NORMAL = 0, COUNTER = 1 };
// In the order of pyasc's HardEvent (src/ir/pipes.cpp).
enum class HardEvent : int {
  MTE2_MTE1,
  MTE1_MTE2,
  MTE1_M,
  M_MTE1,
  MTE2_V,
  V_MTE2,
  MTE3_V,
  V_MTE3,
  M_V,
  V_M,
  V_V,
  MTE3_MTE1,
  MTE1_MTE3,
  MTE1_V,
  MTE2_M,
  M_MTE2,
  V_MTE1,
  M_FIX,
  FIX_M,
  MTE3_MTE2,
  MTE2_MTE3,
  S_V,
  V_S,
  S_MTE2,
  MTE2_S,
  S_MTE3,
  MTE3_S,
  MTE2_FIX,
  FIX_MTE2,
  FIX_S,
  M_S,
  FIX_MTE3,
  MTE1_FIX,
  FIX_MTE1,
  FIX_FIX,
};

// What GlobalTensor and LocalTensor share: slices and scalar access, the IR's <kind>.slice, .get_value and
// .set_value ops (kind: "global_tensor" or "local_tensor").
template <typename T, typename Self>
class TensorAccess {
 public:
  Self operator[](uint64_t offset) const { return Self(run(op("slice").c_str(), {op_, index(offset)})); }
  T GetValue(uint64_t i) const { return from_operand<T>(run(op("get_value").c_str(), {op_, index(i)})); }
  void SetValue(uint64_t i, T v) const { run(op("set_value").c_str(), {op_, index(i), scalar(v)}); }
  const Operand& operand() const { return op_; }

 protected:
  TensorAccess() = default;
  explicit TensorAccess(const Operand& o) : op_(o) {}
  static std::string op(const char* name) { return std::string(Self::kKind) + "." + name; }
  static Operand index(uint64_t i) { return scalar(static_cast<int64_t>(i)); }
  Operand op_;
};

template <typename T>
class GlobalTensor : public TensorAccess<T, GlobalTensor<T>> {
 public:
  static constexpr const char* kKind = "global_tensor";
  GlobalTensor() = default;
  explicit GlobalTensor(const Operand& o) : TensorAccess<T, GlobalTensor<T>>(o) {}
  void SetGlobalBuffer(__gm__ T* p, uint64_t length) {
    this->op_ = ascendc_cpu::global_tensor(p, DtypeOf<T>::value, true, length);
    data_ = p;
  }
  void SetGlobalBuffer(__gm__ T* p) {
    this->op_ = ascendc_cpu::global_tensor(p, DtypeOf<T>::value, false, 0);
    data_ = p;
  }
  GlobalTensor operator[](uint64_t offset) const {
    GlobalTensor slice(TensorAccess<T, GlobalTensor<T>>::operator[](offset).operand());
    slice.data_ = data_ + offset;
    return slice;
  }
  __gm__ T* GetPhyAddr() const { return data_; }
  __gm__ T* GetPhyAddr(uint64_t offset) const { return data_ + offset; }
  uint64_t GetSize() const { return from_operand<uint64_t>(run("global_tensor.get_size", {this->op_})); }

 private:
  T* data_ = nullptr;
};

template <typename T>
class LocalTensor : public TensorAccess<T, LocalTensor<T>> {
 public:
  static constexpr const char* kKind = "local_tensor";
  LocalTensor() = default;
  explicit LocalTensor(const Operand& o) : TensorAccess<T, LocalTensor<T>>(o) {}
  // Static tensor programming: `length` elements at byte `address` of the memory `pos` is in.
  LocalTensor(TPosition pos, uint32_t address, uint32_t length)
      : TensorAccess<T, LocalTensor<T>>(run("local_tensor.create", {this->index(address), this->index(length)},
                                            {DtypeOf<T>::value, static_cast<int64_t>(pos)})) {}
  template <typename U>
  LocalTensor<U> ReinterpretCast() const {
    return LocalTensor<U>(run("local_tensor.reinterpret_cast", {this->op_}, {DtypeOf<U>::value}));
  }
  void SetSize(uint32_t size) { this->op_ = run("local_tensor.set_size", {this->op_, this->index(size)}); }
  uint32_t GetSize() const { return from_operand<uint32_t>(run("local_tensor.get_size", {this->op_})); }
  uint64_t GetPhyAddr(uint32_t offset = 0) const {
    return from_operand<uint64_t>(run("local_tensor.get_phy_addr", {this->op_, this->index(offset)}));
  }
};

template <typename T>
const Operand& operand(const LocalTensor<T>& t) {
  return t.operand();
}
template <typename T>
const Operand& operand(const GlobalTensor<T>& t) {
  return t.operand();
}

// The emitted code places its tensors statically; a TPipe appears only as REGIST_MATMUL_OBJ's argument.
class TPipe {};

// The Unified Buffer's size (Atlas A2): the framework's temporary buffer runs to it.
constexpr uint32_t TOTAL_UB_SIZE = 192 * 1024;

inline int64_t GetBlockIdx() { return ascendc_cpu::block_idx(); }
inline int64_t GetBlockNum() { return ascendc_cpu::block_num(); }
inline int64_t GetSubBlockIdx() { return ascendc_cpu::sub_block_idx(); }
inline int64_t GetSubBlockNum() { return ascendc_cpu::sub_block_num(); }

// ---- scalar conversion and bit counting: native, written apart from the Model's handlers so the round
// trip compares two implementations of the documented semantics -----------------------------------------

template <int countValue>
int64_t ScalarGetSFFValue(uint64_t valueIn) {
  for (int i = 0; i < 64; ++i)
    if (((valueIn >> i) & 1u) == static_cast<uint64_t>(countValue)) return i;
  return -1;
}
template <int countValue>
int64_t ScalarGetCountOfValue(uint64_t valueIn) {
  int64_t n = 0;
  for (int i = 0; i < 64; ++i) n += ((valueIn >> i) & 1u) == static_cast<uint64_t>(countValue);
  return n;
}
inline int64_t ScalarCountLeadingZero(uint64_t valueIn) {
  int64_t n = 0;
  for (int i = 63; i >= 0 && !((valueIn >> i) & 1u); --i) ++n;
  return n;
}
inline int64_t CountBitsCntSameAsSignBit(int64_t valueIn) {
  if (valueIn == 0 || valueIn == -1) return -1;
  uint64_t u = static_cast<uint64_t>(valueIn), sign = u >> 63;
  int64_t n = 0;
  for (int i = 62; i >= 0 && ((u >> i) & 1u) == sign; --i) ++n;
  return n;
}

namespace scalar_cast_detail {
// float -> int32_t: round by the mode, saturate, NaN -> 0
inline int32_t to_int32(float v, RoundMode r) {
  if (std::isnan(v)) return 0;
  double x = v;
  double y = r == RoundMode::CAST_FLOOR   ? std::floor(x)
             : r == RoundMode::CAST_CEIL  ? std::ceil(x)
             : r == RoundMode::CAST_ROUND ? std::round(x)       // half away from zero
                                          : std::nearbyint(x);  // CAST_RINT: ties to even
  if (y <= -2147483648.0) return INT32_MIN;
  if (y >= 2147483647.0) return INT32_MAX;
  return static_cast<int32_t>(y);
}
// float -> half, round to odd: the value truncated towards zero to half precision, its last bit set when inexact
inline half to_half_odd(float v) {
  if (std::isnan(v) || std::isinf(v)) return static_cast<half>(v);
  half h = static_cast<half>(v);
  uint16_t bits;
  std::memcpy(&bits, &h, 2);
  if (static_cast<float>(h) == v) return h;
  if (std::fabs(static_cast<float>(h)) > std::fabs(v)) --bits;  // the neighbour towards zero (inf -> 65504)
  bits |= 1u;
  std::memcpy(&h, &bits, 2);
  return h;
}
}  // namespace scalar_cast_detail

template <typename T, typename U, RoundMode roundMode>
U ScalarCast(T valueIn) {
  static_assert(sizeof(T) == 4, "ScalarCast converts a float");
  if constexpr (sizeof(U) == 2)
    return scalar_cast_detail::to_half_odd(valueIn);
  else
    return scalar_cast_detail::to_int32(valueIn, roundMode);
}

// ---- data movement -------------------------------------------------------------

struct DataCopyParams {
  uint16_t blockCount = 1, blockLen = 0, srcStride = 0, dstStride = 0;
  DataCopyParams(uint16_t count, uint16_t len, uint16_t src, uint16_t dst)
      : blockCount(count), blockLen(len), srcStride(src), dstStride(dst) {}
  Operand field(int i) const {
    const uint16_t v[] = {blockCount, blockLen, srcStride, dstStride};
    return scalar(static_cast<int32_t>(v[i]));
  }
};

struct DataCopyExtParams {
  uint16_t blockCount = 1;
  uint32_t blockLen = 0, srcStride = 0, dstStride = 0, rsv = 0;
  DataCopyExtParams(uint16_t count, uint32_t len, uint32_t src, uint32_t dst, uint32_t reserved)
      : blockCount(count), blockLen(len), srcStride(src), dstStride(dst), rsv(reserved) {}
};

template <typename T>
struct DataCopyPadExtParams {
  bool isPad;
  uint8_t leftPadding, rightPadding;
  T paddingValue;
  DataCopyPadExtParams(bool pad, uint8_t left, uint8_t right, T value)
      : isPad(pad), leftPadding(left), rightPadding(right), paddingValue(value) {}
};

// "data_copy" picks the IR op from the operands, as the builder does: GM <-> local, local -> local, L1 -> the
// bias table (a C2 destination).
template <typename D, typename S>
void DataCopy(const D& dst, const S& src, uint32_t count) {
  run("data_copy", {operand(dst), operand(src), scalar(static_cast<int32_t>(count))});
}
template <typename D, typename S>
void DataCopy(const D& dst, const S& src, const DataCopyParams& p) {
  run("data_copy", {operand(dst), operand(src), p.field(0), p.field(1), p.field(2), p.field(3)});
}

inline Operand u32(uint32_t v) { return scalar(static_cast<int64_t>(v)); }

template <typename T>
void DataCopyPad(const LocalTensor<T>& dst, const GlobalTensor<T>& src, const DataCopyExtParams& p,
                 const DataCopyPadExtParams<T>& pad) {
  run("data_copy_pad.gm_to_local",
      {operand(dst), operand(src), u32(p.blockCount), u32(p.blockLen), u32(p.srcStride), u32(p.dstStride),
       u32(pad.leftPadding), u32(pad.rightPadding), scalar(pad.paddingValue), u32(pad.isPad)});
}
template <typename T>
void DataCopyPad(const GlobalTensor<T>& dst, const LocalTensor<T>& src, const DataCopyExtParams& p) {
  run("data_copy_pad.local_to_gm",
      {operand(dst), operand(src), u32(p.blockCount), u32(p.blockLen), u32(p.srcStride), u32(p.dstStride)});
}

// ---- synchronisation and the mask and atomic registers ------------------------------

template <HardEvent E>
void SetFlag(int32_t id) {
  ascendc_cpu::flag(true, static_cast<int>(E), id);
}
template <HardEvent E>
void WaitFlag(int32_t id) {
  ascendc_cpu::flag(false, static_cast<int>(E), id);
}
template <pipe_t P>
void PipeBarrier() {}  // the calls already run one after another

template <typename T, MaskMode M = MaskMode::NORMAL>
void SetVectorMask(uint64_t len) {
  run("set_vector_mask", {scalar(static_cast<int64_t>(len)), scalar(int64_t{0})},
      {0, DtypeOf<T>::value, M == MaskMode::COUNTER ? 1 : 0});
}
template <typename T, MaskMode M = MaskMode::NORMAL>
void SetVectorMask(uint64_t high, uint64_t low) {
  run("set_vector_mask", {scalar(static_cast<int64_t>(low)), scalar(static_cast<int64_t>(high))},
      {1, DtypeOf<T>::value, M == MaskMode::COUNTER ? 1 : 0});
}
inline void SetMaskCount() { run("set_mask_count", {}); }
inline void SetMaskNorm() { run("set_mask_norm", {}); }
inline void ResetMask() { run("reset_mask", {}); }

template <typename T>
void SetAtomicAdd() {
  run("set_atomic_add", {}, {DtypeOf<T>::value});
}
template <typename T>
void SetAtomicMax() {
  run("set_atomic_max", {}, {DtypeOf<T>::value});
}
template <typename T>
void SetAtomicMin() {
  run("set_atomic_min", {}, {DtypeOf<T>::value});
}
template <typename T>
void SetAtomicType() {
  run("set_atomic_type", {}, {DtypeOf<T>::value});
}
inline void SetAtomicNone() { run("set_atomic_none", {}); }

// ---- vector instructions --------------------------------------------------------------

struct BinaryRepeatParams {
  uint16_t v[6];
  BinaryRepeatParams(uint16_t d_blk, uint16_t s0_blk, uint16_t s1_blk, uint16_t d_rep, uint16_t s0_rep, uint16_t s1_rep)
      : v{d_blk, s0_blk, s1_blk, d_rep, s0_rep, s1_rep} {}
};
struct UnaryRepeatParams {
  uint16_t v[4];
  UnaryRepeatParams(uint16_t d_blk, uint16_t s_blk, uint16_t d_rep, uint16_t s_rep) : v{d_blk, s_blk, d_rep, s_rep} {}
};
// Copy's strides: dstStride, srcStride (blocks), dstRepeatSize, srcRepeatSize (the IR's block then repeat strides).
struct CopyRepeatParams {
  uint16_t v[4];
  CopyRepeatParams(uint16_t d_blk, uint16_t s_blk, uint16_t d_rep, uint16_t s_rep) : v{d_blk, s_blk, d_rep, s_rep} {}
};

// The IR's mask operands and mask_mode of a mask-mode call.
struct Mask {
  Operand low, high;
  int64_t mode;
  Mask(uint64_t count, bool set)
      : low(scalar(static_cast<int64_t>(count))), high(scalar(int64_t{0})), mode(set ? 0 : 2) {}
  Mask(const uint64_t bits[], bool set)
      : low(scalar(static_cast<int64_t>(bits[0]))), high(scalar(static_cast<int64_t>(bits[1]))), mode(set ? 1 : 2) {}
};

// A call's operand list: tensors, scalars, then (mask forms) the mask, repeat count and strides.
struct Args {
  Operand items[96];  // the widest call: data_copy with 8-dimensional SliceInfo lists
  size_t n = 0;
  template <typename T>
  Args& tensor(const LocalTensor<T>& t) {
    items[n++] = t.operand();
    return *this;
  }
  Args& value(const Operand& o) {
    items[n++] = o;
    return *this;
  }
  Args& mask(const Mask& m, uint8_t repeat) {
    items[n++] = m.low;
    items[n++] = m.high;
    items[n++] = scalar(static_cast<int32_t>(repeat));
    return *this;
  }
  Args& strides(const uint16_t* v, size_t count) {
    for (size_t i = 0; i < count; ++i) items[n++] = scalar(static_cast<int32_t>(v[i]));
    return *this;
  }
  Operand call(const char* name, std::initializer_list<int64_t> attrs = {}) const {
    return ascendc_cpu::call(name, items, n, attrs.begin(), attrs.size());
  }
};

// An int32 operand (counts, strides, repeat fields), as the IR takes them.
inline Operand i32(int32_t v) { return scalar(v); }

// Add, Exp, Adds, Duplicate … : one count form and one mask/repeat form per row of ir/vector_ops.def,
// generated from the op table by src/tools/op_table_gen.cpp into the build tree (the asc_cpu target
// builds it; test/python/roundtrip.py adds its directory to the include path).
#if !__has_include("asc_cpu_vector_ops.inc")
#error "asc_cpu_vector_ops.inc is generated: build the asc_cpu target and add <build>/test/ascendc_cpu/include to -I"
#endif
#include "asc_cpu_vector_ops.inc"

template <typename D, typename S>
void Cast(const LocalTensor<D>& d, const LocalTensor<S>& s, RoundMode r, uint32_t count) {
  Args().tensor(d).tensor(s).value(scalar(static_cast<int32_t>(count))).call("cast", {static_cast<int64_t>(r)});
}
template <typename D, typename S, bool isSetMask = true, typename M>
void Cast(const LocalTensor<D>& d, const LocalTensor<S>& s, RoundMode r, const M& mask, uint8_t repeat,
          const UnaryRepeatParams& p) {
  Mask m(mask, isSetMask);
  Args().tensor(d).tensor(s).mask(m, repeat).strides(p.v, 4).call("cast.mask", {m.mode, static_cast<int64_t>(r)});
}

// ---- conversions with arithmetic and the deq-scale register -----------------------------------------

#define ASC_CPU_FUSED_BINARY(Api, name)                                                                                \
  template <typename T, typename U>                                                                                    \
  void Api(const LocalTensor<T>& d, const LocalTensor<U>& s0, const LocalTensor<U>& s1, int32_t count) {               \
    Args().tensor(d).tensor(s0).tensor(s1).value(i32(count)).call(name);                                               \
  }                                                                                                                    \
  template <typename T, typename U, bool isSetMask = true, typename M>                                                 \
  void Api(const LocalTensor<T>& d, const LocalTensor<U>& s0, const LocalTensor<U>& s1, const M& mask, uint8_t repeat, \
           const BinaryRepeatParams& p) {                                                                              \
    Mask m(mask, isSetMask);                                                                                           \
    Args().tensor(d).tensor(s0).tensor(s1).mask(m, repeat).strides(p.v, 6).call(name ".mask", {m.mode});               \
  }
ASC_CPU_FUSED_BINARY(AddReluCast, "add_relu_cast")
ASC_CPU_FUSED_BINARY(SubReluCast, "sub_relu_cast")
ASC_CPU_FUSED_BINARY(MulCast, "mul_cast")
ASC_CPU_FUSED_BINARY(AddDeqRelu, "add_deq_relu")
#undef ASC_CPU_FUSED_BINARY

template <typename T, typename U, bool isVecDeq = true, bool halfBlock = true>
void CastDeq(const LocalTensor<T>& d, const LocalTensor<U>& s, uint32_t count) {
  Args().tensor(d).tensor(s).value(scalar(static_cast<int32_t>(count))).call("cast_deq", {isVecDeq, halfBlock});
}
template <typename T, typename U, bool isSetMask = true, bool isVecDeq = true, bool halfBlock = true, typename M>
void CastDeq(const LocalTensor<T>& d, const LocalTensor<U>& s, const M& mask, uint8_t repeat,
             const UnaryRepeatParams& p) {
  Mask m(mask, isSetMask);
  Args().tensor(d).tensor(s).mask(m, repeat).strides(p.v, 4).call("cast_deq.mask", {m.mode, isVecDeq, halfBlock});
}

inline void SetDeqScale(half scale) { Args().value(scalar(scale)).call("set_deq_scale"); }
inline void SetDeqScale(float scale, int16_t offset, bool signMode) {
  Args().value(scalar(scale)).value(scalar(offset)).value(i32(signMode)).call("set_deq_scale.quant");
}
constexpr uint8_t VDEQ_TENSOR_SIZE = 16;
struct VdeqInfo {
  float vdeqScale[VDEQ_TENSOR_SIZE] = {};
  int16_t vdeqOffset[VDEQ_TENSOR_SIZE] = {};
  bool vdeqSignMode[VDEQ_TENSOR_SIZE] = {};
  VdeqInfo() {}
  VdeqInfo(const float scale[VDEQ_TENSOR_SIZE], const int16_t offset[VDEQ_TENSOR_SIZE],
           const bool sign[VDEQ_TENSOR_SIZE]) {
    for (int i = 0; i < VDEQ_TENSOR_SIZE; ++i) {
      vdeqScale[i] = scale[i];
      vdeqOffset[i] = offset[i];
      vdeqSignMode[i] = sign[i];
    }
  }
};
template <typename T>
void SetDeqScale(const LocalTensor<T>& vdeq, const VdeqInfo& info) {
  Operand items[2 + 3 * VDEQ_TENSOR_SIZE];
  items[0] = vdeq.operand();
  items[1] = i32(VDEQ_TENSOR_SIZE);  // the words written to vdeq
  for (int i = 0; i < VDEQ_TENSOR_SIZE; ++i) {
    items[2 + i] = scalar(info.vdeqScale[i]);
    items[2 + VDEQ_TENSOR_SIZE + i] = scalar(info.vdeqOffset[i]);
    items[2 + 2 * VDEQ_TENSOR_SIZE + i] = scalar(static_cast<int32_t>(info.vdeqSignMode[i]));
  }
  ascendc_cpu::call("set_deq_scale.vector", items, 2 + 3 * VDEQ_TENSOR_SIZE, nullptr, 0);
}

// ---- compare, select, brcb, gather ---------------------------------------------------------

enum class CMPMODE : int { LT = 0, GT, EQ, LE, GE, NE };
enum class SELMODE : int { VSEL_CMPMASK_SPR = 0, VSEL_TENSOR_SCALAR_MODE, VSEL_TENSOR_TENSOR_MODE };

// The IR's derived operand: how many elements of a bit tensor hold `count` bits.
template <typename U>
Operand bits_holder(uint32_t count) {
  constexpr uint32_t bits = 8 * sizeof(U);
  return scalar(static_cast<int32_t>((count + bits - 1) / bits));
}

template <typename U, typename T>
void Compare(const LocalTensor<U>& d, const LocalTensor<T>& a, const LocalTensor<T>& b, CMPMODE mode, uint32_t count) {
  Args()
      .tensor(d)
      .tensor(a)
      .tensor(b)
      .value(u32(count))
      .value(bits_holder<U>(count))
      .call("compare", {static_cast<int64_t>(mode)});
}
template <typename U, typename T>
void CompareScalar(const LocalTensor<U>& d, const LocalTensor<T>& a, T x, CMPMODE mode, uint32_t count) {
  Args()
      .tensor(d)
      .tensor(a)
      .value(scalar(x))
      .value(u32(count))
      .value(bits_holder<U>(count))
      .call("compare_scalar", {static_cast<int64_t>(mode)});
}
template <typename T, typename U, bool isSetMask = true, typename M>
void Compare(const LocalTensor<U>& d, const LocalTensor<T>& a, const LocalTensor<T>& b, CMPMODE mode, const M& mask,
             uint8_t repeat, const BinaryRepeatParams& p) {
  Mask m(mask, isSetMask);
  Args().tensor(d).tensor(a).tensor(b).mask(m, repeat).strides(p.v, 6).call("compare.mask",
                                                                            {m.mode, static_cast<int64_t>(mode)});
}
template <typename T, typename U, bool isSetMask = true, typename M>
void CompareScalar(const LocalTensor<U>& d, const LocalTensor<T>& a, T x, CMPMODE mode, const M& mask, uint8_t repeat,
                   const UnaryRepeatParams& p) {
  Mask m(mask, isSetMask);
  Args().tensor(d).tensor(a).value(scalar(x)).mask(m, repeat).strides(p.v, 4).call(
      "compare_scalar.mask", {m.mode, static_cast<int64_t>(mode)});
}

template <typename T, typename U>
void Select(const LocalTensor<T>& d, const LocalTensor<U>& sel, const LocalTensor<T>& a, const LocalTensor<T>& b,
            SELMODE mode, uint32_t count) {
  // VSEL_CMPMASK_SPR reads one repeat of bits for every repeat (the IR's derived operand counts those)
  uint32_t bits = mode == SELMODE::VSEL_CMPMASK_SPR ? 256 / sizeof(T) : count;
  Args()
      .tensor(d)
      .tensor(sel)
      .tensor(a)
      .tensor(b)
      .value(u32(count))
      .value(bits_holder<U>(bits))
      .call("select", {static_cast<int64_t>(mode)});
}
template <typename T, typename U>
void Select(const LocalTensor<T>& d, const LocalTensor<U>& sel, const LocalTensor<T>& a, T x, SELMODE mode,
            uint32_t count) {
  Args()
      .tensor(d)
      .tensor(sel)
      .tensor(a)
      .value(scalar(x))
      .value(u32(count))
      .value(bits_holder<U>(count))
      .call("select_scalar", {static_cast<int64_t>(mode)});
}
template <typename T, typename U, bool isSetMask = true, typename M>
void Select(const LocalTensor<T>& d, const LocalTensor<U>& sel, const LocalTensor<T>& a, const LocalTensor<T>& b,
            SELMODE mode, const M& mask, uint8_t repeat, const BinaryRepeatParams& p) {
  Mask m(mask, isSetMask);
  Args().tensor(d).tensor(sel).tensor(a).tensor(b).mask(m, repeat).strides(p.v, 6).call(
      "select.mask", {m.mode, static_cast<int64_t>(mode)});
}
template <typename T, typename U, bool isSetMask = true, typename M>
void Select(const LocalTensor<T>& d, const LocalTensor<U>& sel, const LocalTensor<T>& a, T x, SELMODE mode,
            const M& mask, uint8_t repeat, const BinaryRepeatParams& p) {
  Mask m(mask, isSetMask);
  Args().tensor(d).tensor(sel).tensor(a).value(scalar(x)).mask(m, repeat).strides(p.v, 6).call(
      "select_scalar.mask", {m.mode, static_cast<int64_t>(mode)});
}

struct BrcbRepeatParams {
  uint16_t v[2];
  BrcbRepeatParams(uint16_t blk, uint16_t rep) : v{blk, rep} {}
};
template <typename T>
void Brcb(const LocalTensor<T>& d, const LocalTensor<T>& s, uint8_t repeat, const BrcbRepeatParams& p) {
  Args().tensor(d).tensor(s).value(scalar(static_cast<int32_t>(repeat))).strides(p.v, 2).call("brcb");
}

template <typename T>
void Gather(const LocalTensor<T>& d, const LocalTensor<T>& s, const LocalTensor<uint32_t>& offsets, uint32_t base,
            uint32_t count) {
  Args().tensor(d).tensor(s).tensor(offsets).value(u32(base)).value(u32(count)).call("gather");
}
template <typename T, bool isSetMask = true, typename M>
void Gather(const LocalTensor<T>& d, const LocalTensor<T>& s, const LocalTensor<uint32_t>& offsets, uint32_t base,
            const M& mask, uint8_t repeat, uint16_t dst_rep) {
  Mask m(mask, isSetMask);
  const uint16_t stride[] = {dst_rep};
  Args().tensor(d).tensor(s).tensor(offsets).value(u32(base)).mask(m, repeat).strides(stride, 1).call("gather.mask",
                                                                                                      {m.mode});
}

// ---- sorting (ir/ops_sort.cpp): each call is one op on the Model's handlers ---------------------------------

template <typename T>
struct MrgSortSrcList {
  MrgSortSrcList() = default;
  MrgSortSrcList(const LocalTensor<T>& s1, const LocalTensor<T>& s2, const LocalTensor<T>& s3, const LocalTensor<T>& s4)
      : src1(s1), src2(s2), src3(s3), src4(s4) {}
  LocalTensor<T> src1, src2, src3, src4;
};

struct MrgSort4Info {
  MrgSort4Info() = default;
  MrgSort4Info(const uint16_t lengths[4], bool suspension, uint16_t valid, uint16_t repeats)
      : ifExhaustedSuspension(suspension), validBit(valid), repeatTimes(static_cast<uint8_t>(repeats)) {
    for (int i = 0; i < 4; ++i) elementLengths[i] = lengths[i];
  }
  uint16_t elementLengths[4] = {0, 0, 0, 0};
  bool ifExhaustedSuspension = false;
  uint16_t validBit = 0;
  uint8_t repeatTimes = 1;
};

namespace sort_detail {
// A C++ MrgSortSrcList always holds four lists.
template <typename T>
void merge(const char* op, const LocalTensor<T>& dst, const MrgSortSrcList<T>& src, const uint16_t lengths[4],
           uint16_t valid, int64_t repeats, bool suspension) {
  Args a;
  a.tensor(dst).tensor(src.src1).tensor(src.src2).tensor(src.src3).tensor(src.src4);
  for (int k = 0; k < 4; ++k) a.value(scalar(static_cast<int64_t>(lengths[k])));
  a.value(scalar(static_cast<int64_t>(valid))).value(scalar(repeats)).call(op, {suspension ? 1 : 0, 4});
}
}  // namespace sort_detail

template <typename T>
void Sort32(const LocalTensor<T>& d, const LocalTensor<T>& s0, const LocalTensor<uint32_t>& s1, const int32_t repeat) {
  Args().tensor(d).tensor(s0).tensor(s1).value(i32(repeat)).call("sort32");
}
template <typename T, bool isFullSort>
void Sort(const LocalTensor<T>& d, const LocalTensor<T>& concat, const LocalTensor<uint32_t>& index,
          LocalTensor<T>& tmp, const int32_t repeat) {
  Args().tensor(d).tensor(concat).tensor(index).tensor(tmp).value(i32(repeat)).call("sort", {isFullSort ? 1 : 0});
}
template <typename T>
void MrgSort(const LocalTensor<T>& d, const MrgSortSrcList<T>& src, const MrgSort4Info& p) {
  sort_detail::merge("mrg_sort", d, src, p.elementLengths, p.validBit, p.repeatTimes, p.ifExhaustedSuspension);
}
inline void GetMrgSortResult(uint16_t& l1, uint16_t& l2, uint16_t& l3, uint16_t& l4) {
  uint16_t* lists[] = {&l1, &l2, &l3, &l4};
  for (int k = 0; k < 4; ++k) *lists[k] = from_operand<uint16_t>(run("get_mrg_sort_result", {}, {k}));
}
// The advanced API's merge; with isExhaustedSuspension sortedNum gets the merge result register's counts.
template <typename T, bool isExhaustedSuspension = false>
void MrgSort(const LocalTensor<T>& d, const MrgSortSrcList<T>& src, const uint16_t elementCountList[4],
             uint32_t sortedNum[4], uint16_t validBit, const int32_t repeat) {
  sort_detail::merge("mrg_sort.counts", d, src, elementCountList, validBit, repeat, isExhaustedSuspension);
  if (!isExhaustedSuspension) return;
  uint16_t n[4];
  GetMrgSortResult(n[0], n[1], n[2], n[3]);
  for (int k = 0; k < 4; ++k) sortedNum[k] = n[k];
}
template <typename T>
uint32_t GetSortLen(const uint32_t elemCount) {
  return from_operand<uint32_t>(run("get_sort_len", {scalar(elemCount)}, {DtypeOf<T>::value}));
}
template <typename T>
uint32_t GetSortOffset(const uint32_t elemOffset) {
  return from_operand<uint32_t>(run("get_sort_offset", {scalar(elemOffset)}, {DtypeOf<T>::value}));
}
// The region-proposal instructions, which A2/A3 lack: the Model reports them, as the board does.
template <typename T>
void MrgSort4(const LocalTensor<T>& d, const MrgSortSrcList<T>& src, const MrgSort4Info& p) {
  sort_detail::merge("mrg_sort4", d, src, p.elementLengths, p.validBit, p.repeatTimes, p.ifExhaustedSuspension);
}
template <typename T>
void RpSort16(const LocalTensor<T>& d, const LocalTensor<T>& s, const int32_t repeat) {
  Args().tensor(d).tensor(s).value(i32(repeat)).call("rp_sort16");
}
template <typename T>
void ProposalConcat(const LocalTensor<T>& d, const LocalTensor<T>& s, const int32_t repeat, const int32_t mode) {
  Args().tensor(d).tensor(s).value(i32(repeat)).value(i32(mode)).call("proposal_concat");
}
template <typename T>
void ProposalExtract(const LocalTensor<T>& d, const LocalTensor<T>& s, const int32_t repeat, const int32_t mode) {
  Args().tensor(d).tensor(s).value(i32(repeat)).value(i32(mode)).call("proposal_extract");
}

// Compare into the CMPMASK register (one repeat), and Select from it.
template <typename T, bool isSetMask = true, typename M>
void Compare(const LocalTensor<T>& a, const LocalTensor<T>& b, CMPMODE mode, const M& mask,
             const BinaryRepeatParams& p) {
  Mask m(mask, isSetMask);
  const uint16_t strides[] = {p.v[1], p.v[2], p.v[4], p.v[5]};
  Args()
      .tensor(a)
      .tensor(b)
      .mask(m, 1)
      .strides(strides, 4)
      .call("compare.register", {m.mode, static_cast<int64_t>(mode)});
}
template <typename T, SELMODE Mode>
void Select(const LocalTensor<T>& d, const LocalTensor<T>& a, const LocalTensor<T>& b, uint8_t repeat,
            const BinaryRepeatParams& p) {
  static_assert(Mode == SELMODE::VSEL_CMPMASK_SPR, "the register form selects by CMPMASK");
  Args()
      .tensor(d)
      .tensor(a)
      .tensor(b)
      .mask(Mask(uint64_t{0}, false), repeat)
      .strides(p.v, 6)
      .call("select.register", {2});
}
// VSEL_TENSOR_SCALAR_MODE with the scalar in CMPMASK (SetCmpMask, or a scalar Select before)
template <typename T, typename U>
void Select(const LocalTensor<T>& d, const LocalTensor<U>& sel, const LocalTensor<T>& a, uint8_t repeat,
            const BinaryRepeatParams& p) {
  Args()
      .tensor(d)
      .tensor(sel)
      .tensor(a)
      .mask(Mask(uint64_t{0}, false), repeat)
      .strides(p.v, 6)
      .call("select_scalar.register", {2});
}
template <typename T>
void GetCmpMask(const LocalTensor<T>& d) {
  Args().tensor(d).call("get_cmp_mask");
}
template <typename T>
void SetCmpMask(const LocalTensor<T>& s) {
  Args().tensor(s).call("set_cmp_mask");
}

// ---- reductions ---------------------------------------------------------------------------------

enum class ReduceOrder : int { ORDER_VALUE_INDEX = 0, ORDER_INDEX_VALUE, ORDER_ONLY_VALUE, ORDER_ONLY_INDEX };

// A reduction's result count (1, or 2 with the index): a compile-time constant in the IR.
inline Operand results(bool with_index) {
  Operand o = scalar(int32_t{with_index ? 2 : 1});
  o.constant = true;
  return o;
}

template <typename T>
void ReduceSum(const LocalTensor<T>& d, const LocalTensor<T>& s, const LocalTensor<T>& w, int32_t count) {
  Args().tensor(d).tensor(s).tensor(w).value(i32(count)).value(results(false)).call("reduce_sum");
}
template <typename T, typename M>
void ReduceSum(const LocalTensor<T>& d, const LocalTensor<T>& s, const LocalTensor<T>& w, const M& mask, int32_t repeat,
               int32_t src_rep) {
  Mask m(mask, true);
  Args()
      .tensor(d)
      .tensor(s)
      .tensor(w)
      .mask(m, static_cast<uint8_t>(repeat))
      .value(i32(src_rep))
      .value(results(false))
      .call("reduce_sum.mask", {m.mode});
}
#define ASC_CPU_REDUCE_INDEX(Api, name)                                                                              \
  template <typename T>                                                                                              \
  void Api(const LocalTensor<T>& d, const LocalTensor<T>& s, const LocalTensor<T>& w, int32_t count,                 \
           bool cal_index = false) {                                                                                 \
    Args().tensor(d).tensor(s).tensor(w).value(i32(count)).value(results(cal_index)).call(name);                     \
  }                                                                                                                  \
  template <typename T, typename M>                                                                                  \
  void Api(const LocalTensor<T>& d, const LocalTensor<T>& s, const LocalTensor<T>& w, const M& mask, int32_t repeat, \
           int32_t src_rep, bool cal_index = false) {                                                                \
    Mask m(mask, true);                                                                                              \
    Args()                                                                                                           \
        .tensor(d)                                                                                                   \
        .tensor(s)                                                                                                   \
        .tensor(w)                                                                                                   \
        .mask(m, static_cast<uint8_t>(repeat))                                                                       \
        .value(i32(src_rep))                                                                                         \
        .value(results(cal_index))                                                                                   \
        .call(name ".mask", {m.mode});                                                                               \
  }
ASC_CPU_REDUCE_INDEX(ReduceMax, "reduce_max")
ASC_CPU_REDUCE_INDEX(ReduceMin, "reduce_min")

template <typename T, bool isSetMask = true, typename M>
void WholeReduceSum(const LocalTensor<T>& d, const LocalTensor<T>& s, const M& mask, int32_t repeat, int32_t dst_rep,
                    int32_t src_blk, int32_t src_rep) {
  Mask m(mask, isSetMask);
  Args()
      .tensor(d)
      .tensor(s)
      .mask(m, static_cast<uint8_t>(repeat))
      .value(i32(dst_rep))
      .value(i32(src_blk))
      .value(i32(src_rep))
      .call("whole_reduce_sum", {m.mode});
}
#define ASC_CPU_WHOLE_ORDER(Api, name)                                                                       \
  template <typename T, bool isSetMask = true, typename M>                                                   \
  void Api(const LocalTensor<T>& d, const LocalTensor<T>& s, const M& mask, int32_t repeat, int32_t dst_rep, \
           int32_t src_blk, int32_t src_rep, ReduceOrder order = ReduceOrder::ORDER_VALUE_INDEX) {           \
    Mask m(mask, isSetMask);                                                                                 \
    Args()                                                                                                   \
        .tensor(d)                                                                                           \
        .tensor(s)                                                                                           \
        .mask(m, static_cast<uint8_t>(repeat))                                                               \
        .value(i32(dst_rep))                                                                                 \
        .value(i32(src_blk))                                                                                 \
        .value(i32(src_rep))                                                                                 \
        .call(name, {m.mode, static_cast<int64_t>(order)});                                                  \
  }
ASC_CPU_WHOLE_ORDER(WholeReduceMax, "whole_reduce_max")
ASC_CPU_WHOLE_ORDER(WholeReduceMin, "whole_reduce_min")
#define ASC_CPU_BLOCK_REDUCE(Api, name)                                                                      \
  template <typename T, bool isSetMask = true, typename M>                                                   \
  void Api(const LocalTensor<T>& d, const LocalTensor<T>& s, int32_t repeat, const M& mask, int32_t dst_rep, \
           int32_t src_blk, int32_t src_rep) {                                                               \
    Mask m(mask, isSetMask);                                                                                 \
    Args()                                                                                                   \
        .tensor(d)                                                                                           \
        .tensor(s)                                                                                           \
        .mask(m, static_cast<uint8_t>(repeat))                                                               \
        .value(i32(dst_rep))                                                                                 \
        .value(i32(src_blk))                                                                                 \
        .value(i32(src_rep))                                                                                 \
        .call(name, {m.mode});                                                                               \
  }
ASC_CPU_BLOCK_REDUCE(BlockReduceSum, "block_reduce_sum")
ASC_CPU_BLOCK_REDUCE(BlockReduceMax, "block_reduce_max")
ASC_CPU_BLOCK_REDUCE(BlockReduceMin, "block_reduce_min")
ASC_CPU_BLOCK_REDUCE(PairReduceSum, "pair_reduce_sum")

struct GatherRepeatParams {
  uint16_t v[2];
  GatherRepeatParams(uint16_t dst_blk, uint16_t dst_rep) : v{dst_blk, dst_rep} {}
};
template <typename T>
void Gatherb(const LocalTensor<T>& d, const LocalTensor<T>& s, const LocalTensor<uint32_t>& offsets, uint8_t repeat,
             const GatherRepeatParams& p) {
  Args().tensor(d).tensor(s).tensor(offsets).value(i32(repeat)).strides(p.v, 2).call("gatherb");
}
inline int64_t GetGatherMaskRemainCount() { return Args().call("get_gather_mask_remain_count").i; }

template <typename T, typename M>
void BilinearInterpolation(const LocalTensor<T>& d, const LocalTensor<T>& s0, const LocalTensor<uint32_t>& offsets,
                           const LocalTensor<T>& s1, const M& mask, uint8_t h_repeat, bool repeat_mode,
                           uint16_t dst_blk, uint16_t v_offset, uint8_t v_repeat, const LocalTensor<uint8_t>& tmp) {
  Mask m(mask, true);
  Args()
      .tensor(d)
      .tensor(s0)
      .tensor(offsets)
      .tensor(s1)
      .value(m.low)
      .value(m.high)
      .value(i32(h_repeat))
      .value(i32(repeat_mode))
      .value(i32(dst_blk))
      .value(i32(v_offset))
      .value(i32(v_repeat))
      .tensor(tmp)
      .call("bilinear_interpolation", {m.mode});
}

// ---- gather_mask, transpose ---------------------------------------------------------------------------

struct GatherMaskParams {
  uint16_t v[4];
  GatherMaskParams(uint16_t src0_blk, uint16_t repeat, uint16_t src0_rep, uint16_t src1_rep)
      : v{src0_blk, repeat, src0_rep, src1_rep} {}
};
template <typename T, typename U>
void GatherMask(const LocalTensor<T>& d, const LocalTensor<T>& s, const LocalTensor<U>& pattern, bool reduce_mode,
                uint32_t mask, const GatherMaskParams& p, uint64_t& kept) {
  kept = static_cast<uint64_t>(Args()
                                   .tensor(d)
                                   .tensor(s)
                                   .tensor(pattern)
                                   .value(i32(reduce_mode))
                                   .value(u32(mask))
                                   .strides(p.v, 4)
                                   .call("gather_mask")
                                   .i);
}
template <typename T>
void GatherMask(const LocalTensor<T>& d, const LocalTensor<T>& s, uint8_t pattern, bool reduce_mode, uint32_t mask,
                const GatherMaskParams& p, uint64_t& kept) {
  kept = static_cast<uint64_t>(Args()
                                   .tensor(d)
                                   .tensor(s)
                                   .value(i32(pattern))
                                   .value(i32(reduce_mode))
                                   .value(u32(mask))
                                   .strides(p.v, 4)
                                   .call("gather_mask.pattern")
                                   .i);
}

enum class TransposeType : int {
  TRANSPOSE_TYPE_NONE = 0,
  TRANSPOSE_ND2ND_B16 = 10,
  TRANSPOSE_NCHW2NHWC,
  TRANSPOSE_NHWC2NCHW
};
struct TransposeParamsExt {
  uint16_t v[4];
  TransposeType type;
  TransposeParamsExt(uint16_t n, uint16_t c, uint16_t h, uint16_t w, TransposeType t) : v{n, c, h, w}, type(t) {}
};
template <typename T>
void Transpose(const LocalTensor<T>& d, const LocalTensor<T>& s) {
  Args().tensor(d).tensor(s).call("transpose");
}
template <typename T>
void Transpose(const LocalTensor<T>& d, const LocalTensor<T>& s, const LocalTensor<uint8_t>& tmp,
               const TransposeParamsExt& p) {
  Args().tensor(d).tensor(s).tensor(tmp).strides(p.v, 4).call("transpose.ext", {static_cast<int64_t>(p.type)});
}

// ---- the cube unit -------------------------------------------------------------------------------

// Parameter structs whose constructor takes the fields in the IR's operand order.
template <size_t N>
struct Fields {
  uint32_t v[N];
  template <typename... A>
  explicit Fields(A... a) : v{static_cast<uint32_t>(a)...} {}
  Args& add(Args& args) const {
    for (uint32_t x : v) args.value(scalar(static_cast<int32_t>(x)));
    return args;
  }
};
struct Nd2NzParams : Fields<8> {
  using Fields::Fields;
};
struct Nz2NdParamsFull : Fields<7> {
  using Fields::Fields;
};
struct LoadData2DParams : Fields<7> {
  using Fields::Fields;
};
struct LoadData2dTransposeParams : Fields<6> {
  using Fields::Fields;
};

template <typename T>
void DataCopy(const LocalTensor<T>& dst, const GlobalTensor<T>& src, const Nd2NzParams& p) {
  Args a;
  a.value(operand(dst)).value(operand(src));
  p.add(a).call("data_copy.nd2nz");
}
// Unified Buffer -> L1
template <typename T>
void DataCopy(const LocalTensor<T>& dst, const LocalTensor<T>& src, const Nd2NzParams& p) {
  Args a;
  a.value(operand(dst)).value(operand(src));
  p.add(a).call("data_copy.nd2nz.ub");
}
template <typename T>
void DataCopy(const GlobalTensor<T>& dst, const LocalTensor<T>& src, const Nz2NdParamsFull& p) {
  Args a;
  a.value(operand(dst)).value(operand(src));
  p.add(a).call("data_copy.nz2nd");
}
template <typename T>
void LoadData(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LoadData2DParams& p) {
  Args a;
  a.tensor(dst).tensor(src);
  p.add(a).call("load_data");
}
template <typename T>
void LoadDataWithTranspose(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LoadData2dTransposeParams& p) {
  Args a;
  a.tensor(dst).tensor(src);
  p.add(a).call("load_data_with_transpose");
}

struct LoadData2dTransposeParamsV2 : Fields<7> {  // the last field: addr_mode
  using Fields::Fields;
};
template <typename T>
void LoadDataWithTranspose(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LoadData2dTransposeParamsV2& p) {
  Args a;
  a.tensor(dst).tensor(src);
  p.add(a).call("load_data_with_transpose.v2");
}

// ---- SliceInfo copies, the pad-value register, AIPP and TransDataTo5HD: each call is its IR op ----------------

struct SliceInfo {
  uint32_t startIndex, endIndex, stride, burstLen, shapeValue;
};

template <typename T, TPosition pos = TPosition::MAX>
void SetPadValue(T paddingValue) {
  run("set_pad_value", {scalar(paddingValue)}, {static_cast<int64_t>(pos)});
}

enum class AippInputFormat : uint8_t { YUV420SP_U8 = 0, XRGB8888_U8 = 1, RGB888_U8 = 4, YUV400_U8 = 9 };
template <typename U>
struct AippPaddingParams {
  uint32_t paddingMode{0};
  U paddingValueCh0{0}, paddingValueCh1{0}, paddingValueCh2{0}, paddingValueCh3{0};
};
struct AippSwapParams {
  bool isSwapRB{false}, isSwapUV{false}, isSwapAX{false};
};
struct AippSingleLineParams {
  bool isSingleLineCopy{false};
};
struct AippDataTypeConvParams {
  uint8_t dtcMeanCh0{0}, dtcMeanCh1{0}, dtcMeanCh2{0};
  half dtcMinCh0{0}, dtcMinCh1{0}, dtcMinCh2{0};
  half dtcVarCh0{1.0}, dtcVarCh1{1.0}, dtcVarCh2{1.0};
  uint32_t dtcRoundMode{0};
};
template <typename U>
struct AippChannelPaddingParams {
  uint32_t cPaddingMode;
  U cPaddingValue;
};
struct AippColorSpaceConvParams {
  bool isEnableCsc{false};
  int16_t cscMatrixR0C0{0}, cscMatrixR0C1{0}, cscMatrixR0C2{0}, cscMatrixR1C0{0}, cscMatrixR1C1{0}, cscMatrixR1C2{0},
      cscMatrixR2C0{0}, cscMatrixR2C1{0}, cscMatrixR2C2{0};
  uint8_t cscBiasIn0{0}, cscBiasIn1{0}, cscBiasIn2{0}, cscBiasOut0{0}, cscBiasOut1{0}, cscBiasOut2{0};
};
template <typename U>
struct AippParams {
  AippPaddingParams<U> paddingParams;
  AippSwapParams swapParams;
  AippSingleLineParams singleLineParams;
  AippDataTypeConvParams dtcParams;
  AippChannelPaddingParams<U> cPaddingParams;
  AippColorSpaceConvParams cscParams;
  // The IR's 37 fields, in the row's order.
  Args& add(Args& a) const {
    const AippPaddingParams<U>& p = paddingParams;
    a.value(scalar(p.paddingMode)).value(scalar(p.paddingValueCh0)).value(scalar(p.paddingValueCh1));
    a.value(scalar(p.paddingValueCh2)).value(scalar(p.paddingValueCh3));
    a.value(scalar(swapParams.isSwapRB)).value(scalar(swapParams.isSwapUV)).value(scalar(swapParams.isSwapAX));
    a.value(scalar(singleLineParams.isSingleLineCopy));
    const AippDataTypeConvParams& d = dtcParams;
    for (uint8_t m : {d.dtcMeanCh0, d.dtcMeanCh1, d.dtcMeanCh2}) a.value(scalar(m));
    for (half h : {d.dtcMinCh0, d.dtcMinCh1, d.dtcMinCh2, d.dtcVarCh0, d.dtcVarCh1, d.dtcVarCh2}) a.value(scalar(h));
    a.value(scalar(d.dtcRoundMode))
        .value(scalar(cPaddingParams.cPaddingMode))
        .value(scalar(cPaddingParams.cPaddingValue));
    const AippColorSpaceConvParams& c = cscParams;
    a.value(scalar(c.isEnableCsc));
    for (int16_t m : {c.cscMatrixR0C0, c.cscMatrixR0C1, c.cscMatrixR0C2, c.cscMatrixR1C0, c.cscMatrixR1C1,
                      c.cscMatrixR1C2, c.cscMatrixR2C0, c.cscMatrixR2C1, c.cscMatrixR2C2})
      a.value(scalar(m));
    for (uint8_t b : {c.cscBiasIn0, c.cscBiasIn1, c.cscBiasIn2, c.cscBiasOut0, c.cscBiasOut1, c.cscBiasOut2})
      a.value(scalar(b));
    return a;
  }
};
template <typename T, typename U>
void SetAippFunctions(const GlobalTensor<T>& src0, AippInputFormat format, AippParams<U> config) {
  Args a;
  a.value(operand(src0));
  config.add(a).call("set_aipp_functions", {static_cast<int64_t>(format), DtypeOf<U>::value});
}
template <typename T, typename U>
void SetAippFunctions(const GlobalTensor<T>& src0, const GlobalTensor<T>& src1, AippInputFormat format,
                      AippParams<U> config) {
  Args a;
  a.value(operand(src0)).value(operand(src1));
  config.add(a).call("set_aipp_functions.dual", {static_cast<int64_t>(format), DtypeOf<U>::value});
}
struct LoadImageToLocalParams {
  uint16_t horizSize, vertSize, horizStartPos, vertStartPos, srcHorizSize;
  uint8_t topPadSize, botPadSize;
  uint16_t leftPadSize, rightPadSize;
};
template <typename T>
void LoadImageToLocal(const LocalTensor<T>& dst, const LoadImageToLocalParams& p) {
  Args a;
  a.tensor(dst);
  for (uint32_t v : {uint32_t{p.horizSize}, uint32_t{p.vertSize}, uint32_t{p.horizStartPos}, uint32_t{p.vertStartPos},
                     uint32_t{p.srcHorizSize}, uint32_t{p.topPadSize}, uint32_t{p.botPadSize}, uint32_t{p.leftPadSize},
                     uint32_t{p.rightPadSize}})
    a.value(scalar(static_cast<int32_t>(v)));
  a.call("load_image_to_local");
}
struct TransDataTo5HDParams {
  bool dstHighHalf, srcHighHalf;
  uint8_t repeatTimes;
  uint16_t dstRepStride, srcRepStride;
  TransDataTo5HDParams(bool dst_high, bool src_high, uint8_t repeat, uint16_t dst_rep, uint16_t src_rep)
      : dstHighHalf(dst_high),
        srcHighHalf(src_high),
        repeatTimes(repeat),
        dstRepStride(dst_rep),
        srcRepStride(src_rep) {}
  Args& add(Args& a) const {
    a.value(scalar(static_cast<int32_t>(dstHighHalf))).value(scalar(static_cast<int32_t>(srcHighHalf)));
    a.value(scalar(static_cast<int32_t>(repeatTimes))).value(scalar(static_cast<int32_t>(dstRepStride)));
    return a.value(scalar(static_cast<int32_t>(srcRepStride)));
  }
};
template <typename T>
void TransDataTo5HD(const LocalTensor<uint64_t>& dst, const LocalTensor<uint64_t>& src, const TransDataTo5HDParams& p) {
  Args a;
  a.tensor(dst).tensor(src);
  p.add(a).call("trans_data_to_5hd", {DtypeOf<T>::value});
}
template <typename T>
void TransDataTo5HD(uint64_t dstList[16], uint64_t srcList[16], const TransDataTo5HDParams& p) {
  Args a;
  for (int i = 0; i < 16; ++i) a.value(scalar(dstList[i]));
  for (int i = 0; i < 16; ++i) a.value(scalar(srcList[i]));
  p.add(a).call("trans_data_to_5hd.list", {DtypeOf<T>::value});
}

template <typename D, typename S>
void SliceCopy(const char* name, const D& dst, const S& src, const SliceInfo* d, const SliceInfo* s, uint32_t dims) {
  Args a;
  a.value(operand(dst)).value(operand(src));
  for (const SliceInfo* side : {d, s})
    for (uint32_t i = 0; i < dims; ++i)
      for (uint32_t v : {side[i].startIndex, side[i].endIndex, side[i].stride, side[i].burstLen, side[i].shapeValue})
        a.value(u32(v));
  a.call(name, {static_cast<int64_t>(dims)});
}
template <typename T>
void DataCopy(const LocalTensor<T>& dst, const GlobalTensor<T>& src, const SliceInfo dstSliceInfo[],
              const SliceInfo srcSliceInfo[], const uint32_t dimValue = 1) {
  SliceCopy("data_copy.slice.gm_to_local", dst, src, dstSliceInfo, srcSliceInfo, dimValue);
}
template <typename T>
void DataCopy(const GlobalTensor<T>& dst, const LocalTensor<T>& src, const SliceInfo dstSliceInfo[],
              const SliceInfo srcSliceInfo[], const uint32_t dimValue = 1) {
  SliceCopy("data_copy.slice.local_to_gm", dst, src, dstSliceInfo, srcSliceInfo, dimValue);
}
// VECIN/VECOUT -> TSCM: the DataCopyExtParams rows, then ND2NZ
template <typename T>
void DataCopyPad(const LocalTensor<T>& dst, const LocalTensor<T>& src, const DataCopyExtParams& p,
                 const Nd2NzParams& nd2nz) {
  Args a;
  a.tensor(dst).tensor(src).value(u32(p.blockCount)).value(u32(p.blockLen)).value(u32(p.srcStride));
  a.value(u32(p.dstStride));
  nd2nz.add(a).call("data_copy_pad.nd2nz");
}

struct MmadParams {
  uint16_t m, n, k;
  uint8_t unitFlag;
  bool cmatrixSource, cmatrixInitVal;
  MmadParams(uint16_t m_, uint16_t n_, uint16_t k_, uint8_t unit, bool source, bool init)
      : m(m_), n(n_), k(k_), unitFlag(unit), cmatrixSource(source), cmatrixInitVal(init) {}
};
template <typename T, typename U, typename S>
void Mmad(const LocalTensor<T>& d, const LocalTensor<U>& a, const LocalTensor<S>& b, const MmadParams& p) {
  Args()
      .tensor(d)
      .tensor(a)
      .tensor(b)
      .value(i32(p.m))
      .value(i32(p.n))
      .value(i32(p.k))
      .value(i32(p.cmatrixInitVal))
      .value(i32(p.cmatrixSource))
      .call(std::is_same<T, half>::value ? "mmad.f16" : "mmad");  // a float16 L0C: 512-byte fractals
}
template <typename T, typename U, typename S, typename V>
void Mmad(const LocalTensor<T>& d, const LocalTensor<U>& a, const LocalTensor<S>& b, const LocalTensor<V>& bias,
          const MmadParams& p) {
  Args().tensor(d).tensor(a).tensor(b).tensor(bias).value(i32(p.m)).value(i32(p.n)).value(i32(p.k)).call(
      std::is_same<T, half>::value ? "mmad.bias_f16" : "mmad.bias");
}

enum class QuantMode_t : int {
  NoQuant = 0,
  F322F16,
  F322BF16,
  DEQF16,
  VDEQF16,
  QF322B8_PRE,
  VQF322B8_PRE,
  REQ8,
  VREQ8
};
enum class CO2Layout : int { NZ = 0, ROW_MAJOR, COLUMN_MAJOR };
struct FixpipeConfig {
  CO2Layout format;
  bool isToUB = false;  // Ascend 950: the destination is a vector core's Unified Buffer
};
constexpr FixpipeConfig CFG_NZ{CO2Layout::NZ};
constexpr FixpipeConfig CFG_ROW_MAJOR{CO2Layout::ROW_MAJOR};

struct FixpipeParamsV220 {
  uint16_t nSize, mSize, srcStride;
  uint32_t dstStride;
  bool reluEn;
  QuantMode_t quantPre;
  int64_t deqScalar;
  uint16_t ndNum, srcNdStride, dstNdStride;
  uint8_t unitFlag;
  FixpipeParamsV220(uint16_t n, uint16_t m, uint16_t src, uint32_t dst, bool relu, QuantMode_t quant, int64_t deq,
                    uint16_t nd, uint16_t src_nd, uint16_t dst_nd, uint8_t unit)
      : nSize(n),
        mSize(m),
        srcStride(src),
        dstStride(dst),
        reluEn(relu),
        quantPre(quant),
        deqScalar(deq),
        ndNum(nd),
        srcNdStride(src_nd),
        dstNdStride(dst_nd),
        unitFlag(unit) {}
  // The IR's fixpipe fields: n, m, src_stride, dst_stride, quant_pre, deq_scalar, nd_num, src_nd, dst_nd, relu.
  Args& add(Args& a) const {
    a.value(i32(nSize)).value(i32(mSize)).value(i32(srcStride)).value(scalar(static_cast<int64_t>(dstStride)));
    a.value(i32(static_cast<int32_t>(quantPre))).value(scalar(deqScalar)).value(i32(ndNum)).value(i32(srcNdStride));
    return a.value(i32(dstNdStride)).value(i32(reluEn));
  }
};
template <typename T, typename U, const FixpipeConfig& config = CFG_ROW_MAJOR>
void Fixpipe(const GlobalTensor<T>& d, const LocalTensor<U>& s, const FixpipeParamsV220& p) {
  Args a;
  a.value(operand(d)).tensor(s);
  p.add(a).call("fixpipe", {config.format == CO2Layout::ROW_MAJOR ? 1 : 0, 0});
}
template <typename T, typename U, const FixpipeConfig& config = CFG_ROW_MAJOR>
void Fixpipe(const GlobalTensor<T>& d, const LocalTensor<U>& s, const LocalTensor<uint64_t>& workspace,
             const FixpipeParamsV220& p) {
  Args a;
  a.value(operand(d)).tensor(s);
  p.add(a).tensor(workspace).call("fixpipe.vector_quant", {config.format == CO2Layout::ROW_MAJOR ? 1 : 0, 0});
}
struct DataCopyCO12DstParams {
  uint16_t nSize, mSize;
  uint32_t dstStride;
  uint16_t srcStride;
  QuantMode_t quantPre;
  uint8_t reluPre;
  bool channelSplit, nz2ndEn;
  DataCopyCO12DstParams(uint16_t n, uint16_t m, uint32_t dst, uint16_t src, QuantMode_t quant, uint8_t relu, bool split,
                        bool nz2nd)
      : nSize(n),
        mSize(m),
        dstStride(dst),
        srcStride(src),
        quantPre(quant),
        reluPre(relu),
        channelSplit(split),
        nz2ndEn(nz2nd) {}
};
// L0C -> GM with the quantisation scalar of SetFixpipePreQuantFlag: the IR's fixpipe reading that register.
template <typename T, typename U>
void DataCopy(const GlobalTensor<T>& d, const LocalTensor<U>& s, const DataCopyCO12DstParams& p) {
  Args a;
  a.value(operand(d)).tensor(s);
  FixpipeParamsV220(p.nSize, p.mSize, p.srcStride, p.dstStride, p.reluPre != 0, p.quantPre, 0, 1, 0, 0, 0).add(a);
  a.call("fixpipe", {p.nz2ndEn ? 1 : 0, 1});
}
// L0C -> L1 (NZ2NZ), the same register
template <typename T, typename U>
void DataCopy(const LocalTensor<T>& d, const LocalTensor<U>& s, const DataCopyCO12DstParams& p) {
  Args a;
  a.tensor(d).tensor(s);
  FixpipeParamsV220(p.nSize, p.mSize, p.srcStride, p.dstStride, p.reluPre != 0, p.quantPre, 0, 1, 0, 0, 0).add(a);
  a.call("fixpipe.l1", {p.nz2ndEn ? 1 : 0, 1});
}
// Ascend 950's fixpipe parameters (FixpipeParamsArch3510): NZ2ND's matrix fields in `params`, dstStride in
// elements in both layouts; L0C -> UB also takes the dual-destination control and the target sub-block.
struct Nz2NdParams {
  uint16_t ndNum = 1;
  uint16_t srcNdStride = 0;
  uint32_t dstNdStride = 0;
};
template <CO2Layout format>
struct TransformParams {
  using PARAMS = uint8_t;
};
template <>
struct TransformParams<CO2Layout::ROW_MAJOR> {
  using PARAMS = Nz2NdParams;
};
template <CO2Layout format = CO2Layout::ROW_MAJOR>
struct FixpipeParamsArch3510 {
  FixpipeParamsArch3510() = default;
  FixpipeParamsArch3510(uint16_t n, uint16_t m, uint16_t src, uint32_t dst)
      : nSize(n), mSize(m), srcStride(src), dstStride(dst) {}
  uint16_t nSize = 0, mSize = 0, srcStride = 0;
  uint32_t dstStride = 0;
  QuantMode_t quantPre = QuantMode_t::NoQuant;
  uint64_t deqScalar = 0;
  bool reluEn = false;
  uint8_t unitFlag = 0;
  uint8_t dualDstCtl = 0;
  bool subBlockId = false;
  typename TransformParams<format>::PARAMS params{};
  bool isChannelSplit = false;
};
// L0C -> UB: the IR's fixpipe.ub (fixpipe's fields, then dual_dst_ctl and sub_block_id)
template <typename T, typename U, const FixpipeConfig& config>
void Fixpipe(const LocalTensor<T>& d, const LocalTensor<U>& s, const FixpipeParamsArch3510<config.format>& p) {
  static_assert(config.isToUB, "Fixpipe into a LocalTensor needs a FixpipeConfig with isToUB = true");
  int64_t nd = 1, src_nd = 0, dst_nd = 0;
  if constexpr (config.format == CO2Layout::ROW_MAJOR) {
    nd = p.params.ndNum;
    src_nd = p.params.srcNdStride;
    dst_nd = p.params.dstNdStride;
  }
  Args a;
  a.tensor(d).tensor(s);
  a.value(i32(p.nSize)).value(i32(p.mSize)).value(i32(p.srcStride)).value(scalar(static_cast<int64_t>(p.dstStride)));
  a.value(i32(static_cast<int32_t>(p.quantPre))).value(scalar(static_cast<int64_t>(p.deqScalar)));
  a.value(i32(static_cast<int32_t>(nd))).value(i32(static_cast<int32_t>(src_nd))).value(scalar(dst_nd));
  a.value(i32(p.reluEn)).value(i32(p.dualDstCtl)).value(i32(p.subBlockId));
  a.call("fixpipe.ub", {config.format == CO2Layout::ROW_MAJOR ? 1 : 0});
}
inline void SetFixpipePreQuantFlag(uint64_t config) {
  run("set_fix_pipe_pre_quant_flag", {scalar(static_cast<int64_t>(config))});
}

// ---- the cube extras: InitConstValue, the 4:2 sparse pair, the img2col load and the modes they read --------

template <typename T>
struct InitConstValueParams {
  uint16_t repeatTimes = 0, blockNum = 0, dstGap = 0;
  T initValue = 0;
  InitConstValueParams() = default;
  InitConstValueParams(uint16_t repeat, uint16_t blocks, uint16_t gap, T value)
      : repeatTimes(repeat), blockNum(blocks), dstGap(gap), initValue(value) {}
};
template <typename T, typename U>
void InitConstValue(const LocalTensor<T>& dst, const InitConstValueParams<U>& p) {
  uint8_t pos = operand(dst).position;
  bool l1 = pos == static_cast<uint8_t>(TPosition::A1) || pos == static_cast<uint8_t>(TPosition::B1);
  Args()
      .tensor(dst)
      .value(i32(p.repeatTimes))
      .value(i32(p.blockNum))
      .value(i32(p.dstGap))
      .value(scalar(static_cast<T>(p.initValue)))
      .call("init_const_value", {l1 ? 1 : 0});
}
template <typename T, typename U>
void LoadDataWithSparse(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<U>& idx,
                        const LoadData2DParams& p) {
  Args a;
  a.tensor(dst).tensor(src).tensor(idx);
  p.add(a).call("load_data_with_sparse");
}
template <typename T, typename U>
void MmadWithSparse(const LocalTensor<T>& d, const LocalTensor<U>& a, const LocalTensor<U>& b, const MmadParams& p) {
  Args()
      .tensor(d)
      .tensor(a)
      .tensor(b)
      .value(i32(p.m))
      .value(i32(p.n))
      .value(i32(p.k))
      .value(i32(p.cmatrixInitVal))
      .value(i32(p.cmatrixSource))
      .call("mmad_with_sparse");
}

// The emitter spells load_data with LoadData3DParamsV2 as SetFmatrix, SetLoadDataPaddingValue and the V2Pro load.
enum class FmatrixMode : uint8_t { FMATRIX_LEFT = 0, FMATRIX_RIGHT = 1 };
inline void SetFmatrix(uint16_t l1H, uint16_t l1W, const uint8_t padList[4], const FmatrixMode& mode) {
  (void)mode;  // FMATRIX_LEFT only (f_matrix_ctrl false)
  run("set_fmatrix", {i32(l1H), i32(l1W), i32(padList[0]), i32(padList[1]), i32(padList[2]), i32(padList[3])});
}
struct LoadData3DParamsV2Pro {
  uint16_t channelSize = 0;
  bool enTranspose = false, enSmallK = false, filterSizeW = false, filterSizeH = false, fMatrixCtrl = false;
  uint64_t extConfig = 0, filterConfig = 0x10101010101ull;
  LoadData3DParamsV2Pro(uint16_t c, bool transpose, bool smallK, bool sizeW, bool sizeH, bool ctrl, uint64_t ext,
                        uint64_t filter)
      : channelSize(c),
        enTranspose(transpose),
        enSmallK(smallK),
        filterSizeW(sizeW),
        filterSizeH(sizeH),
        fMatrixCtrl(ctrl),
        extConfig(ext),
        filterConfig(filter) {}
};
template <typename T>
void LoadData(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LoadData3DParamsV2Pro& p) {
  Args()
      .tensor(dst)
      .tensor(src)
      .value(i32(p.channelSize))
      .value(i32(p.enTranspose))
      .value(i32(p.enSmallK))
      .value(i32(p.filterSizeW))
      .value(i32(p.filterSizeH))
      .value(i32(p.fMatrixCtrl))
      .value(scalar(p.extConfig))
      .value(scalar(p.filterConfig))
      .call("load_data.3dv2pro");
}
inline void SetLoadDataBoundary(uint32_t boundaryValue) {
  run("set_load_data_boundary", {scalar(static_cast<int64_t>(boundaryValue))});
}
template <typename T>
void SetLoadDataPaddingValue(const T padValue) {
  run("set_load_data_padding_value", {scalar(padValue)});
}
struct LoadDataRepeatParam {
  uint16_t repeatStride = 0;
  uint8_t repeatTime = 1, repeatMode = 0;
  LoadDataRepeatParam(uint16_t stride, uint8_t time, uint8_t mode)
      : repeatStride(stride), repeatTime(time), repeatMode(mode) {}
};
inline void SetLoadDataRepeat(const LoadDataRepeatParam& p) {
  run("set_load_data_repeat", {i32(p.repeatTime), i32(p.repeatStride), i32(p.repeatMode)});
}
inline void SetHF32Mode(bool hf32Mode) { run("set_hf32_mode", {i32(hf32Mode)}); }
inline void SetHF32TransMode(bool hf32TransMode) { run("set_hf32_trans_mode", {i32(hf32TransMode)}); }
inline void SetMMLayoutTransform(bool mmLayoutMode) { run("set_mm_layout_transform", {i32(mmLayoutMode)}); }

// ---- between cores -----------------------------------------------------------------------------------

template <uint8_t mode, pipe_t pipe>
void CrossCoreSetFlag(uint16_t flag) {
  run("cross_core_set_flag", {scalar(static_cast<int32_t>(flag))}, {mode, static_cast<int64_t>(pipe)});
}
template <uint8_t mode = 0, pipe_t pipe = PIPE_S>
void CrossCoreWaitFlag(uint16_t flag) {
  run("cross_core_wait_flag", {scalar(static_cast<int32_t>(flag))}, {mode, static_cast<int64_t>(pipe)});
}
template <bool isAIVOnly = true>
void SyncAll() {
  run("sync_all", {}, {isAIVOnly ? 1 : 0});
}
template <bool isAIVOnly = true>
void SyncAll(const GlobalTensor<int32_t>& gmWorkspace, const LocalTensor<int32_t>& ubWorkspace,
             const int32_t usedCores = 0) {
  static_assert(isAIVOnly, "the software SyncAll synchronises vector cores only");
  run("sync_all.soft", {operand(gmWorkspace), operand(ubWorkspace), scalar(usedCores)});
}
template <bool isAIVOnly = true>
void IBSet(const GlobalTensor<int32_t>& gmWorkspace, const LocalTensor<int32_t>& ubWorkspace, int32_t blockIdx,
           int32_t eventID) {
  run("ib_set", {operand(gmWorkspace), operand(ubWorkspace), scalar(blockIdx), scalar(eventID)}, {isAIVOnly ? 1 : 0});
}
template <bool isAIVOnly = true>
void IBWait(const GlobalTensor<int32_t>& gmWorkspace, const LocalTensor<int32_t>& ubWorkspace, int32_t blockIdx,
            int32_t eventID) {
  run("ib_wait", {operand(gmWorkspace), operand(ubWorkspace), scalar(blockIdx), scalar(eventID)}, {isAIVOnly ? 1 : 0});
}
inline void NotifyNextBlock(GlobalTensor<int32_t>& gmWorkspace, LocalTensor<int32_t>& ubWorkspace) {
  run("notify_next_block", {operand(gmWorkspace), operand(ubWorkspace)});
}
inline void WaitPreBlock(GlobalTensor<int32_t>& gmWorkspace, LocalTensor<int32_t>& ubWorkspace) {
  run("wait_pre_block", {operand(gmWorkspace), operand(ubWorkspace)});
}

// ---- system queries and controls: the clock and the program counter native (the round trip runs each call
// as an op of its own, so the Model's would restart), the rest on the Model's handlers ------------------------

enum class MemDsbT : int { ALL = 0, DDR, UB, SEQ };

// The 50 MHz system counter, from the host's steady clock.
inline int64_t GetSystemCycle() {
  auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch());
  return static_cast<int64_t>(ns.count() / 20);
}
inline void GetArchVersion(uint32_t& coreVersion) { coreVersion = from_operand<uint32_t>(run("get_arch_version", {})); }
inline constexpr int16_t GetDataBlockSizeInBytes() { return 32; }
// Grows from call to call, as a program counter does along straight-line code.
inline int64_t GetProgramCounter() {
  static thread_local int64_t pc = 0;
  return pc += 4;
}
inline int64_t GetTaskRatio() { return from_operand<int64_t>(run("get_task_ratio", {})); }
inline void Trap() { run("trap", {}); }
template <MemDsbT arg0>
void DataSyncBarrier() {
  run("data_sync_barrier", {}, {static_cast<int64_t>(arg0)});
}
inline void InitSocState() { run("init_soc_state", {}); }
struct CheckLocalMemoryIAParam {
  uint8_t enableBit = 0;
  uint32_t startAddr = 0, endAddr = 0;
  bool isScalarRead = false, isScalarWrite = false, isVectorRead = false, isVectorWrite = false;
  bool isMteRead = false, isMteWrite = false, isEnable = false;
};
inline void CheckLocalMemoryIA(const CheckLocalMemoryIAParam& p) {
  run("check_local_memory_ia",
      {scalar(int32_t{p.enableBit}), scalar(p.startAddr), scalar(p.endAddr), scalar(p.isScalarRead),
       scalar(p.isScalarWrite), scalar(p.isVectorRead), scalar(p.isVectorWrite), scalar(p.isMteRead),
       scalar(p.isMteWrite), scalar(p.isEnable)});
}
inline void GetStoreAtomicConfig(uint16_t& atomicType, uint16_t& atomicOp) {
  atomicType = from_operand<uint16_t>(run("get_store_atomic_config", {}, {0}));
  atomicOp = from_operand<uint16_t>(run("get_store_atomic_config", {}, {1}));
}
inline GM_ADDR GetSysWorkSpacePtr() { return reinterpret_cast<GM_ADDR>(run("get_sys_workspace", {}).addr); }
namespace detail {
inline GM_ADDR& hccl_context(uint32_t index) {
  static thread_local GM_ADDR contexts[2] = {nullptr, nullptr};
  return contexts[index];
}
}  // namespace detail
template <uint32_t index>
void SetHcclContext(GM_ADDR context) {
  static_assert(index < 2, "two communication domains");
  detail::hccl_context(index) = context;
}
template <uint32_t index>
GM_ADDR GetHcclContext() {
  static_assert(index < 2, "two communication domains");
  if (!detail::hccl_context(index)) throw std::runtime_error("GetHcclContext: no context was set");
  return detail::hccl_context(index);
}

// ---- debugging -----------------------------------------------------------------------------------------

// A printf value: a number, or a GM address (%s, %p) as the GlobalTensor over it the Model formats.
template <typename T>
Operand printf_value(T v) {
  return scalar(v);
}
inline Operand printf_value(GM_ADDR p) { return ascendc_cpu::global_tensor(p, DtypeOf<uint8_t>::value, false, 0); }

template <typename... A>
void printf(const char* format, A... values) {
  Operand operands[] = {printf_value(values)..., Operand{}};
  ascendc_cpu::call_with_text("printf", operands, sizeof...(A), format);
}

struct ShapeInfo {
  uint8_t dims;
  uint32_t shape[8];
  ShapeInfo(uint8_t n, const uint32_t* s) : dims(n), shape{} {
    for (uint8_t i = 0; i < n && i < 8; ++i) shape[i] = s[i];
  }
};
template <typename Tensor>
void DumpTensor(const Tensor& t, uint32_t desc, uint32_t size) {
  run("dump_tensor", {operand(t), u32(desc), u32(size)});
}
template <typename Tensor>
void DumpTensor(const Tensor& t, uint32_t desc, uint32_t size, const ShapeInfo& shape) {
  Args a;
  a.value(operand(t)).value(u32(desc)).value(u32(size));
  for (uint8_t i = 0; i < shape.dims; ++i) a.value(u32(shape.shape[i]));
  a.call("dump_tensor");
}

template <typename Tensor>
void DumpAccChkPoint(const Tensor& t, uint32_t index, uint32_t countOff, uint32_t dumpSize) {
  run("dump_acc_chk_point", {operand(t), u32(index), u32(countOff), u32(dumpSize)});
}
inline void PrintTimeStamp(uint32_t descId) { run("print_time_stamp", {u32(descId)}); }
inline void MetricsProfStart() { run("metrics_prof_start", {}); }
inline void MetricsProfStop() { run("metrics_prof_stop", {}); }

// ---- caches: no data changes; the Model's handlers charge their time ---------------------------------------

enum class CacheLine : uint64_t { SINGLE_CACHE_LINE = 0, ENTIRE_DATA_CACHE };
enum class DcciDst : uint64_t { CACHELINE_ALL = 0, CACHELINE_UB, CACHELINE_OUT, CACHELINE_ATOMIC };
template <typename T, CacheLine entireType, DcciDst dcciDst>
void DataCacheCleanAndInvalid(const GlobalTensor<T>& dst) {
  run("data_cache_clean_and_invalid", {operand(dst)},
      {static_cast<int64_t>(entireType), static_cast<int64_t>(dcciDst)});
}
template <typename T, CacheLine entireType>
void DataCacheCleanAndInvalid(const GlobalTensor<T>& dst) {
  run("data_cache_clean_and_invalid.no_dst", {operand(dst)}, {static_cast<int64_t>(entireType)});
}
template <typename T>
void DataCachePreload(const GlobalTensor<uint64_t>& src, const T cacheOffset) {
  run("data_cache_preload", {operand(src), scalar(static_cast<int64_t>(cacheOffset))});
}
inline void ICachePreLoad(const int64_t preFetchLen) { run("icache_preload", {scalar(preFetchLen)}); }
inline int64_t GetICachePreloadStatus() { return from_operand<int64_t>(run("get_icache_preload_status", {})); }

// ---- list tensors: native, written apart from the Model's handlers (the buffer's layout: ir/ops_list_tensor.cpp)

class ListTensorDesc;
template <class T>
class TensorDesc {
 public:
  void SetShapeAddr(uint64_t* shapePtr) {
    if (!shapePtr) throw std::runtime_error("TensorDesc::SetShapeAddr(nullptr)");
    shape_ = shapePtr;
  }
  uint64_t GetDim() { return dim_; }
  uint64_t GetIndex() { return index_; }
  uint64_t GetShape(uint32_t offset) {
    if (offset >= dim_) throw std::runtime_error("TensorDesc::GetShape: offset past the dims");
    return shape_[offset];
  }
  __gm__ T* GetDataPtr() { return ptr_; }
  GlobalTensor<T> GetDataObj() {
    uint64_t n = 1;
    for (uint32_t i = 0; i < dim_; ++i) n *= shape_[i];
    GlobalTensor<T> g;
    g.SetGlobalBuffer(ptr_, n);
    return g;
  }

 private:
  friend class ListTensorDesc;
  uint32_t dim_ = 0, index_ = 0;
  uint64_t* shape_ = nullptr;
  __gm__ T* ptr_ = nullptr;
};

class ListTensorDesc {
 public:
  ListTensorDesc() = default;
  ListTensorDesc(__gm__ void* data, uint32_t length = 0xffffffff, uint32_t shapeSize = 0xffffffff) {
    Init(data, length, shapeSize);
  }
  void Init(__gm__ void* data, uint32_t length = 0xffffffff, uint32_t shapeSize = 0xffffffff) {
    words_ = static_cast<const uint64_t*>(data);
    uint64_t ptrOffset = word(0);
    uint64_t head = word(1);
    dim_ = static_cast<uint32_t>(head);
    recordWords_ = dim_ == 0 ? 2 : 1 + dim_;
    ptrWord_ = ptrOffset / 8;
    count_ = (head >> 32) != 0 ? static_cast<uint32_t>(head >> 32)
                               : static_cast<uint32_t>(word(ptrWord_ - recordWords_) >> 32) + 1;
    bool layout = dim_ != 0
                      ? count_ == (ptrOffset - 8) / (8 * recordWords_) && (ptrOffset - 8) % (8 * recordWords_) == 0
                      : ptrOffset == 24 && word(2) == 0xffffffffu;
    if (!layout) throw std::runtime_error("ListTensorDesc: the buffer is not a list tensor's layout");
    if (length != 0xffffffffu && shapeSize != 0xffffffffu && (count_ != shapeSize || length != ptrOffset + 8 * count_))
      throw std::runtime_error("ListTensorDesc: length or shapeSize does not match the buffer");
    word(ptrWord_ + count_ - 1);
  }
  template <class T>
  void GetDesc(TensorDesc<T>& desc, uint32_t index) {
    if (index >= count_ || dim_ == 0 || !desc.shape_) throw std::runtime_error("ListTensorDesc::GetDesc");
    desc.dim_ = dim_;
    desc.index_ = index;
    desc.ptr_ = GetDataPtr<T>(index);
    for (uint32_t k = 0; k < dim_; ++k) desc.shape_[k] = word(1 + index * recordWords_ + 1 + k);
  }
  template <class T>
  __gm__ T* GetDataPtr(uint32_t index) {
    if (index >= count_) throw std::runtime_error("ListTensorDesc::GetDataPtr: index past the list");
    return reinterpret_cast<__gm__ T*>(static_cast<uintptr_t>(ascendc_cpu::relocate_gm(word(ptrWord_ + index))));
  }
  uint32_t GetSize() { return count_; }

 private:
  uint64_t word(uint64_t i) const {
    ascendc_cpu::check_gm(words_ + i, words_ + i + 1);
    return words_[i];
  }
  const uint64_t* words_ = nullptr;
  uint32_t dim_ = 0, recordWords_ = 0, count_ = 0;
  uint64_t ptrWord_ = 0;
};

}  // namespace AscendC

using AscendC::QuantMode_t;
