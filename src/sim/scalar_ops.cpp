// Scalar-unit ops: constants, integer/float arithmetic with the dtype's width
// and rounding, block queries, and tensor/address construction.
#include <cmath>
#include <cstring>

#include "ir/matmul_api.h"
#include "sim/handlers.h"
#include "sim/scalar_math.h"

namespace asc::sim {
namespace {

DType result_dtype(Block& b, const Op& op) { return b.kernel().type_of(op.result).dtype; }
DType operand_dtype(Block& b, const Op& op, size_t i) { return b.kernel().type_of(op.operands[i]).dtype; }

template <typename IntFn, typename FloatFn>
void binary(Block& b, const Op& op, const RtValue* in, RtValue* out, IntFn int_fn, FloatFn float_fn) {
  DType d = operand_dtype(b, op, 0);
  if (dtype_is_float(d))
    set_float(*out, d, float_fn(in[0].f, in[1].f));
  else
    set_int(*out, d, int_fn(in[0].i, in[1].i, d, op));
}

template <typename Cmp>
void compare(Block& b, const Op& op, const RtValue* in, RtValue* out, Cmp cmp) {
  DType d = operand_dtype(b, op, 0);
  bool r;
  if (dtype_is_float(d))
    r = cmp(in[0].f, in[1].f);
  else if (dtype_is_signed(d))
    r = cmp(in[0].i, in[1].i);
  else
    r = cmp(static_cast<uint64_t>(in[0].i), static_cast<uint64_t>(in[1].i));
  set_int(*out, DType::Bool, r);
}

void check_divisor(const Op& op, int64_t divisor) {
  if (divisor == 0) fail(ASC_ERR_RUNTIME, op.loc, "integer division by zero");
}

// Moves a tensor view `start` elements forward (t[start:]).
void slice(const Op& op, const RtValue& t, int64_t start, DType d, RtValue* out) {
  if (start < 0) fail(ASC_ERR_OUT_OF_BOUNDS, op.loc, "slice start {} is negative", start);
  if (t.len != kUnknownLength && static_cast<uint64_t>(start) > t.len)
    fail(ASC_ERR_OUT_OF_BOUNDS, op.loc, "slice start {} is past the end of a tensor of {} elements", start, t.len);
  *out = t;
  out->addr = moved_address(t.addr, start, dtype_size(d));
  if (t.len != kUnknownLength) out->len = t.len - static_cast<uint64_t>(start);
}

}  // namespace

void exec_For(Block&, const Op& op, const RtValue*, RtValue*) {
  fail(ASC_ERR_INTERNAL, op.loc, "for is run by the block walker");
}
void exec_If(Block&, const Op& op, const RtValue*, RtValue*) {
  fail(ASC_ERR_INTERNAL, op.loc, "if is run by the block walker");
}

void exec_Const(Block& b, const Op& op, const RtValue*, RtValue* out) {
  DType d = result_dtype(b, op);
  const Attr& v = op.attr(1);
  if (dtype_is_float(d))
    set_float(*out, d, v.kind == ASC_ATTR_INT ? static_cast<double>(v.i) : v.f);
  else
    set_int(*out, d, v.kind == ASC_ATTR_INT ? v.i : static_cast<int64_t>(v.f));
}

void exec_Var(Block&, const Op&, const RtValue* in, RtValue* out) { *out = in[0]; }
void exec_Assign(Block& b, const Op& op, const RtValue* in, RtValue*) { b.reg(op.operands[0]) = in[1]; }

void exec_Cast(Block& b, const Op& op, const RtValue* in, RtValue* out) {
  DType from = operand_dtype(b, op, 0), to = result_dtype(b, op);
  if (dtype_is_float(to)) {
    double v = dtype_is_float(from)    ? in[0].f
               : dtype_is_signed(from) ? static_cast<double>(in[0].i)
                                       : static_cast<double>(static_cast<uint64_t>(in[0].i));
    set_float(*out, to, v);
  } else if (dtype_is_float(from)) {
    if (!std::isfinite(in[0].f)) fail(ASC_ERR_RUNTIME, op.loc, "cannot convert {} to an integer", in[0].f);
    set_int(*out, to, to == DType::Bool ? in[0].f != 0.0 : static_cast<int64_t>(std::trunc(in[0].f)));
  } else {
    set_int(*out, to, to == DType::Bool ? in[0].i != 0 : in[0].i);
  }
}

void exec_Neg(Block& b, const Op& op, const RtValue* in, RtValue* out) {
  DType d = operand_dtype(b, op, 0);
  if (dtype_is_float(d))
    set_float(*out, d, -in[0].f);
  else
    set_int(*out, d, static_cast<int64_t>(0ull - static_cast<uint64_t>(in[0].i)));
}

void exec_Not(Block& b, const Op& op, const RtValue* in, RtValue* out) {
  bool zero = dtype_is_float(operand_dtype(b, op, 0)) ? in[0].f == 0.0 : in[0].i == 0;
  set_int(*out, DType::Bool, zero);
}

void exec_AddS(Block& b, const Op& op, const RtValue* in, RtValue* out) {
  binary(
      b, op, in, out, [](int64_t x, int64_t y, DType, const Op&) { return wrapping_add(x, y); },
      [](double x, double y) { return x + y; });
}
void exec_SubS(Block& b, const Op& op, const RtValue* in, RtValue* out) {
  binary(
      b, op, in, out, [](int64_t x, int64_t y, DType, const Op&) { return wrapping_add(x, wrapping_neg(y)); },
      [](double x, double y) { return x - y; });
}
void exec_MulS(Block& b, const Op& op, const RtValue* in, RtValue* out) {
  binary(
      b, op, in, out, [](int64_t x, int64_t y, DType, const Op&) { return wrapping_mul(x, y); },
      [](double x, double y) { return x * y; });
}
// Python semantics: // rounds towards negative infinity, % takes the divisor's sign.
void exec_FloorDivS(Block& b, const Op& op, const RtValue* in, RtValue* out) {
  binary(
      b, op, in, out,
      [](int64_t x, int64_t y, DType d, const Op& o) {
        check_divisor(o, y);
        return floor_div(x, y, dtype_is_signed(d));
      },
      [](double x, double y) { return std::floor(x / y); });
}
void exec_ModS(Block& b, const Op& op, const RtValue* in, RtValue* out) {
  binary(
      b, op, in, out,
      [](int64_t x, int64_t y, DType d, const Op& o) {
        check_divisor(o, y);
        return floor_mod(x, y, dtype_is_signed(d));
      },
      [](double x, double y) {
        double r = std::fmod(x, y);
        return (r != 0 && ((r < 0) != (y < 0))) ? r + y : r;
      });
}
void exec_TrueDivS(Block& b, const Op& op, const RtValue* in, RtValue* out) {
  set_float(*out, operand_dtype(b, op, 0), in[0].f / in[1].f);
}
void exec_MinS(Block& b, const Op& op, const RtValue* in, RtValue* out) {
  binary(
      b, op, in, out,
      [](int64_t x, int64_t y, DType d, const Op&) {
        return dtype_is_signed(d) ? std::min(x, y)
                                  : static_cast<int64_t>(std::min(static_cast<uint64_t>(x), static_cast<uint64_t>(y)));
      },
      [](double x, double y) { return std::min(x, y); });
}
void exec_MaxS(Block& b, const Op& op, const RtValue* in, RtValue* out) {
  binary(
      b, op, in, out,
      [](int64_t x, int64_t y, DType d, const Op&) {
        return dtype_is_signed(d) ? std::max(x, y)
                                  : static_cast<int64_t>(std::max(static_cast<uint64_t>(x), static_cast<uint64_t>(y)));
      },
      [](double x, double y) { return std::max(x, y); });
}
void exec_AndS(Block& b, const Op& op, const RtValue* in, RtValue* out) {
  set_int(*out, operand_dtype(b, op, 0), in[0].i & in[1].i);
}
void exec_OrS(Block& b, const Op& op, const RtValue* in, RtValue* out) {
  set_int(*out, operand_dtype(b, op, 0), in[0].i | in[1].i);
}
void exec_XorS(Block& b, const Op& op, const RtValue* in, RtValue* out) {
  set_int(*out, operand_dtype(b, op, 0), in[0].i ^ in[1].i);
}
void exec_ShlS(Block& b, const Op& op, const RtValue* in, RtValue* out) {
  DType d = operand_dtype(b, op, 0);
  set_int(*out, d, shift_left(in[0].i, in[1].i, dtype_size(d) * 8));
}
void exec_ShrS(Block& b, const Op& op, const RtValue* in, RtValue* out) {
  DType d = operand_dtype(b, op, 0);
  set_int(*out, d, shift_right(in[0].i, in[1].i, dtype_size(d) * 8, dtype_is_signed(d)));
}

void exec_CmpEq(Block& b, const Op& op, const RtValue* in, RtValue* out) {
  compare(b, op, in, out, [](auto x, auto y) { return x == y; });
}
void exec_CmpNe(Block& b, const Op& op, const RtValue* in, RtValue* out) {
  compare(b, op, in, out, [](auto x, auto y) { return x != y; });
}
void exec_CmpLt(Block& b, const Op& op, const RtValue* in, RtValue* out) {
  compare(b, op, in, out, [](auto x, auto y) { return x < y; });
}
void exec_CmpLe(Block& b, const Op& op, const RtValue* in, RtValue* out) {
  compare(b, op, in, out, [](auto x, auto y) { return x <= y; });
}
void exec_CmpGt(Block& b, const Op& op, const RtValue* in, RtValue* out) {
  compare(b, op, in, out, [](auto x, auto y) { return x > y; });
}
void exec_CmpGe(Block& b, const Op& op, const RtValue* in, RtValue* out) {
  compare(b, op, in, out, [](auto x, auto y) { return x >= y; });
}

void exec_GetBlockIdx(Block& b, const Op&, const RtValue*, RtValue* out) { set_int(*out, DType::Int64, b.block_idx()); }
void exec_GetBlockNum(Block& b, const Op&, const RtValue*, RtValue* out) { set_int(*out, DType::Int64, b.block_dim()); }
void exec_GetSubBlockIdx(Block& b, const Op&, const RtValue*, RtValue* out) {
  set_int(*out, DType::Int64, b.core().sub_block_idx);
}
void exec_GetSubBlockNum(Block& b, const Op&, const RtValue*, RtValue* out) {
  set_int(*out, DType::Int64, b.core().sub_block_num);
}
// Bit counting of the scalar unit (Ascend C ScalarGetSFFValue, ScalarGetCountOfValue, ScalarCountLeadingZero,
// CountBitsCntSameAsSignBit; the row's comment in ir/ops_scalar.cpp cites the documentation).
// The index from the least significant bit of the first bit equal to count_value, -1 if there is none.
void exec_ScalarGetSffValue(Block&, const Op& op, const RtValue* in, RtValue* out) {
  uint64_t x = static_cast<uint64_t>(in[0].i);
  if (op.attr_int(0) == 0) x = ~x;
  set_int(*out, DType::Int64, x == 0 ? -1 : __builtin_ctzll(x));
}
// How many of the 64 bits equal count_value.
void exec_ScalarGetCountOfValue(Block&, const Op& op, const RtValue* in, RtValue* out) {
  int64_t ones = __builtin_popcountll(static_cast<uint64_t>(in[0].i));
  set_int(*out, DType::Int64, op.attr_int(0) == 0 ? 64 - ones : ones);
}
// Zeros above the highest one bit (64 for 0).
void exec_ScalarCountLeadingZero(Block&, const Op&, const RtValue* in, RtValue* out) {
  uint64_t x = static_cast<uint64_t>(in[0].i);
  set_int(*out, DType::Int64, x == 0 ? 64 : __builtin_clzll(x));
}
// How many consecutive bits below the sign bit equal it; -1 for 0 and -1 (all 64 bits equal).
void exec_CountBitsCntSameAsSignBit(Block&, const Op&, const RtValue* in, RtValue* out) {
  int64_t x = in[0].i;
  set_int(*out, DType::Int64, x == 0 || x == -1 ? -1 : __builtin_clrsbll(x));
}
void exec_MatmulServer(Block& b, const Op&, const RtValue*, RtValue*) {
  if (b.core().kind == CoreKind::AIC && is_mix(b.kernel().options.kernel_type)) b.stop();
}
// The Model computes a Matmul call by the expansion that follows the marker; a marker with an error is a call
// with nothing to compute from (get_tensor_c before iterate).
void exec_MatmulCall(Block& b, const Op& op, const RtValue*, RtValue*) {
  if (op.attrs.size() > kMatmulErrorAttr && !op.attr(kMatmulErrorAttr).s.empty())
    fail(ASC_ERR_RUNTIME, op.loc, "{}: {}", b.label(), op.attr(kMatmulErrorAttr).s);
}
void exec_MatmulCallEnd(Block&, const Op&, const RtValue*, RtValue*) {}
void exec_AscendIsAic(Block& b, const Op&, const RtValue*, RtValue* out) {
  set_int(*out, DType::Bool, b.core().kind == CoreKind::AIC);
}
void exec_AscendIsAiv(Block& b, const Op&, const RtValue*, RtValue* out) {
  set_int(*out, DType::Bool, b.core().kind == CoreKind::AIV);
}

void exec_GmReinterpret(Block&, const Op&, const RtValue* in, RtValue* out) { *out = in[0]; }

void exec_GmOffset(Block& b, const Op& op, const RtValue* in, RtValue* out) {
  *out = in[0];
  out->addr = moved_address(in[0].addr, in[1].i, dtype_size(operand_dtype(b, op, 0)));
}

void exec_GlobalSetBuffer(Block&, const Op& op, const RtValue* in, RtValue* out) {
  *out = in[0];
  out->cache_mode = kCacheModeNormal;  // a new buffer starts with Ascend C's default
  out->len = kUnknownLength;
  if (op.operands.size() > 1) {
    if (in[1].i < 0) fail(ASC_ERR_OUT_OF_BOUNDS, op.loc, "set_global_buffer length {} is negative", in[1].i);
    out->len = static_cast<uint64_t>(in[1].i);
  }
}

void exec_GlobalSlice(Block& b, const Op& op, const RtValue* in, RtValue* out) {
  slice(op, in[0], in[1].i, operand_dtype(b, op, 0), out);
}

void exec_LocalCreate(Block& b, const Op& op, const RtValue* in, RtValue* out) {
  DType d = result_dtype(b, op);
  Position pos = b.kernel().type_of(op.result).position;
  int64_t offset = in[0].i, length = in[1].i;
  const std::string& name = op.attr(2).s.empty() ? std::string("LocalTensor") : op.attr(2).s;
  if (offset < 0 || length < 0)
    fail(ASC_ERR_OUT_OF_BOUNDS, op.loc, "{}: address {} and length {} must not be negative", name, offset, length);
  Memory memory = position_memory(pos);
  const char* where = memory_name(memory);
  uint64_t capacity = memory_bytes(b.platform(), memory);
  if (offset % memory_alignment(memory) != 0)
    fail(ASC_ERR_MISALIGNED, op.loc, "{}: address {} is not {}-byte aligned ({} addresses are multiples of {})", name,
         offset, memory_alignment(memory), where, memory_alignment(memory));
  uint64_t bytes = 0;
  bool overflow = __builtin_mul_overflow(static_cast<uint64_t>(length), uint64_t{dtype_size(d)}, &bytes);
  if (overflow || bytes > capacity || static_cast<uint64_t>(offset) + bytes > capacity) {
    std::string size = overflow ? std::string("more than 2^64") : std::to_string(bytes);
    std::string end = overflow ? std::string("2^64+") : std::to_string(static_cast<uint64_t>(offset) + bytes);
    fail(ASC_ERR_OUT_OF_BOUNDS, op.loc,
         "{} ({} x {} = {} bytes at address {}, TPosition.{}) does not fit in the {}: it needs bytes [{}, {}) but {} "
         "has {} bytes per core",
         name, length, dtype_name(d), size, offset, position_name(pos), where, offset, end, b.platform().name,
         capacity);
  }
  out->mem = kMemLocal + static_cast<uint32_t>(memory);
  out->addr = offset;
  out->len = static_cast<uint64_t>(length);
}

void exec_LocalSlice(Block& b, const Op& op, const RtValue* in, RtValue* out) {
  slice(op, in[0], in[1].i, operand_dtype(b, op, 0), out);
}

void exec_LocalReinterpret(Block& b, const Op& op, const RtValue* in, RtValue* out) {
  *out = in[0];
  if (in[0].len != kUnknownLength)
    out->len = in[0].len * dtype_size(operand_dtype(b, op, 0)) / dtype_size(result_dtype(b, op));
}

void exec_LocalSetSize(Block& b, const Op& op, const RtValue* in, RtValue* out) {
  int64_t n = in[1].i;
  if (n < 0) fail(ASC_ERR_OUT_OF_BOUNDS, op.loc, "set_size {} is negative", n);
  // a length past the end of the memory would let later accesses leave it
  Memory memory = static_cast<Memory>(in[0].mem - kMemLocal);
  uint64_t capacity = memory_bytes(b.platform(), memory);
  uint64_t bytes = 0;
  if (__builtin_mul_overflow(static_cast<uint64_t>(n), uint64_t{dtype_size(operand_dtype(b, op, 0))}, &bytes) ||
      static_cast<uint64_t>(in[0].addr) + bytes > capacity)
    fail(ASC_ERR_OUT_OF_BOUNDS, op.loc, "set_size {}: the tensor at address {} would end past the {} ({} bytes)", n,
         in[0].addr, memory_name(memory), capacity);
  *out = in[0];
  out->len = static_cast<uint64_t>(n);
}

void exec_LocalGetSize(Block&, const Op&, const RtValue* in, RtValue* out) {
  set_int(*out, DType::Int32, in[0].len == kUnknownLength ? 0 : static_cast<int64_t>(in[0].len));
}

void exec_LocalGetPhyAddr(Block& b, const Op& op, const RtValue* in, RtValue* out) {
  set_int(*out, DType::UInt64, moved_address(in[0].addr, in[1].i, dtype_size(operand_dtype(b, op, 0))));
}

void exec_GlobalGetSize(Block&, const Op&, const RtValue* in, RtValue* out) {
  set_int(*out, DType::UInt64, in[0].len == kUnknownLength ? 0 : static_cast<int64_t>(in[0].len));
}

void exec_GlobalSetL2CacheHint(Block&, const Op& op, const RtValue* in, RtValue* out) {
  *out = in[0];
  out->cache_mode = static_cast<uint16_t>(op.attr_int(0));
  out->cache_rw = static_cast<uint16_t>(op.attr_int(1));
}

void exec_GlobalGetPhyAddr(Block& b, const Op& op, const RtValue* in, RtValue* out) {
  *out = in[0];
  out->addr = moved_address(in[0].addr, in[1].i, dtype_size(operand_dtype(b, op, 0)));
}

}  // namespace asc::sim
