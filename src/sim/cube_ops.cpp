// The cube unit: data_copy GM -> L1 with ND2NZ, load_data (2D) L1 -> L0A/L0B,
// mmad L0A x L0B -> L0C, fixpipe L0C -> GM, and L1 -> bias table. Layouts
// (C0 = 32 / sizeof(T), fractals of 16 x C0 elements = 512 bytes): L1 holds
// Nz, L0A Zz, L0B Zn; L0C holds Nz fractals of 16 x 16 fp32/int32 elements,
// element (m, n) at (n / 16) * ceil16(M) * 16 + m * 16 + n % 16.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "sim/cross_core.h"
#include "sim/handlers.h"
#include "sim/mmad_kernel.h"
#include "sim/scalar_math.h"

namespace asc::sim {
namespace {

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }
DType dtype(const Block& b, const Op& op, size_t i) { return b.kernel().type_of(op.operands[i]).dtype; }

// Element value of any mmad input dtype, as double (exact for all of them).
double element(const uint8_t* p, DType d) {
  RtValue v;
  load_scalar(v, d, p);
  return dtype_is_float(d) ? v.f : static_cast<double>(v.i);
}

// HF32 (set_hf32_mode): float32 rounded to 11 mantissa bits, the exponent kept ("HF32 ... the same range as
// float32, 11 mantissa bits", https://hiascend.com/document/detail/zh/CANNCommunityEdition/800alpha001/devaids/
// devtools/atc/atlasatcparam_16_0076.html), to nearest: ties to even, or with set_hf32_trans_mode(True)
// ("NEAREST_ZERO ... 以向零靠近的方式四舍五入") ties towards zero. NaN and infinities pass unchanged.
double hf32(double value, bool towards_zero) {
  float f = static_cast<float>(value);
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  if ((bits & 0x7f800000u) == 0x7f800000u) return value;
  uint32_t rest = bits & 0xfffu, kept = bits & ~0xfffu;
  if (rest > 0x800u || (rest == 0x800u && !towards_zero && (kept & 0x1000u))) kept += 0x1000u;
  std::memcpy(&f, &kept, 4);
  return f;
}

}  // namespace

// For each of nd_num matrices, n_value rows of d_value elements; row n's
// elements d go to (d / C0) * dst_nz_c0_stride * C0 + n * dst_nz_n_stride * C0
// + d % C0 (strides in 32-byte units), the last C0 group zero-padded.
void exec_CopyNd2Nz(Block& b, const Op& op, const RtValue* in, RtValue*) {
  int64_t size = dtype_size(dtype(b, op, 0)), c0 = 32 / size;
  int64_t nd = in[2].i, n = in[3].i, d = in[4].i;
  const uint8_t* src = b.effect_ptr(0);
  uint8_t* dst = b.effect_ptr(1);
  // each row's C0 group g: min(C0, d - g * C0) contiguous elements (a whole 32-byte block but for the last),
  // then the group's zero padding, at block g * dst_nz_c0_stride + r * dst_nz_n_stride. When those blocks are
  // all distinct (the groups' rows do not interleave) the order of the writes does not matter, and eight rows go
  // through all their groups together: the destination is written 256 contiguous bytes at a time, not 32 bytes
  // every few KiB (which the L1 cache's sets cannot hold).
  int64_t groups = ceil_div(d, c0), whole = d / c0, c0_stride = in[7].i, n_stride = in[8].i;
  auto copy = [&](int64_t i, int64_t r, int64_t g) {
    const uint8_t* from = src + (i * in[5].i + r * in[6].i + g * c0) * size;
    uint8_t* to = dst + (i * in[9].i + (g * c0_stride + r * n_stride) * c0) * size;
    if (g < whole) {
      std::memcpy(to, from, 32);
      return;
    }
    auto bytes = static_cast<size_t>((d - g * c0) * size);
    std::memcpy(to, from, bytes);
    std::memset(to + bytes, 0, 32 - bytes);
  };
  bool distinct = n_stride >= 1 && c0_stride >= n * n_stride;
  for (int64_t i = 0; i < nd; ++i)
    if (distinct) {
      for (int64_t r0 = 0; r0 < n; r0 += 8)
        for (int64_t g = 0; g < groups; ++g)
          for (int64_t r = r0; r < std::min(n, r0 + 8); ++r) copy(i, r, g);
    } else {
      for (int64_t r = 0; r < n; ++r)
        for (int64_t g = 0; g < groups; ++g) copy(i, r, g);
    }
}

void exec_CopyNd2NzFromUb(Block& b, const Op& op, const RtValue* in, RtValue* out) { exec_CopyNd2Nz(b, op, in, out); }

// Unified Buffer Nz -> GM ND: element d of row n of matrix i comes from
// i * src_nd_matrix_stride * 256 + (d / 16) * src_n_stride * 16 + n * 16 + d % 16.
void exec_CopyNz2Nd(Block& b, const Op& op, const RtValue* in, RtValue*) {
  int64_t size = dtype_size(dtype(b, op, 0));
  const uint8_t* src = b.effect_ptr(0);
  uint8_t* dst = b.effect_ptr(1);
  for (int64_t i = 0; i < in[2].i; ++i)
    for (int64_t n = 0; n < in[3].i; ++n)
      for (int64_t d = 0; d < in[4].i; ++d)
        std::memcpy(dst + (i * in[8].i + n * in[7].i + d) * size,
                    src + (i * in[5].i * 256 + (d / 16) * in[6].i * 16 + n * 16 + d % 16) * size,
                    static_cast<size_t>(size));
}

// repeat_times fractals of 512 bytes; with if_transpose each 16 x 16 fractal
// of 2-byte elements is transposed on the way.
void exec_LoadData2D(Block& b, const Op& op, const RtValue* in, RtValue*) {
  int64_t size = dtype_size(dtype(b, op, 0));
  int64_t start = in[2].i, repeats = in[3].i, stride = in[4].i, gap = in[6].i;
  bool transpose = in[7].i != 0;
  if (transpose && size != 2)
    fail(ASC_ERR_INVALID_ARGUMENT, op.loc,
         "load_data: if_transpose works on 2-byte elements only (float16, bfloat16, int16, uint16); {} needs "
         "LoadDataWithTranspose",
         dtype_name(dtype(b, op, 0)));
  const uint8_t* src = b.effect_ptr(0);
  uint8_t* dst = b.effect_ptr(1);
  for (int64_t i = 0; i < repeats; ++i) {
    const uint8_t* from = src + (in[8].i ? start - i * stride : start + i * stride) * 512;
    uint8_t* to = dst + (gap + 1) * i * 512;
    if (!transpose) {  // L1 into L0A / L0B: never the same memory
      std::memcpy(to, from, 512);
      continue;
    }
    uint16_t fractal[256], turned[256];  // 2-byte elements moved as such
    std::memcpy(fractal, from, 512);
    for (int r = 0; r < 16; ++r)
      for (int c = 0; c < 16; ++c) turned[r * 16 + c] = fractal[c * 16 + r];
    std::memcpy(to, turned, 512);
  }
}

// Each repeat transposes one square into whole fractals (Ascend C's
// LoadDataWithTranspose): 2-byte types a 16 x 16 fractal; 1-byte types a
// 32 x 32 square (two 16 x 32 fractals, one after the other) into fractal j =
// rows 16j.. of its transpose; 4-byte types a 16 x 16 square held as two
// 16 x 8 fractals (columns 0..7, then 8..15) into fractal j = its transpose's
// columns 8j..8j+7 (16 rows of 8).
void exec_LoadDataTranspose(Block& b, const Op& op, const RtValue* in, RtValue*) {
  int64_t size = dtype_size(dtype(b, op, 0));
  int64_t start = in[2].i, repeats = in[3].i, stride = in[4].i, gap = in[5].i, frac_gap = in[6].i;
  int64_t side = size == 1 ? 32 : 16, square = side * side;
  const uint8_t* src = b.effect_ptr(0);
  uint8_t* dst = b.effect_ptr(1);
  // Element (r, c) of the source square, as an element index within it.
  auto at = [&](int64_t r, int64_t c) { return size == 4 ? (c / 8) * 128 + r * 8 + c % 8 : r * side + c; };
  for (int64_t i = 0; i < repeats; ++i) {
    const uint8_t* sq = src + (in[7].i ? start - i * stride : start + i * stride) * square * size;
    uint8_t* out = dst + (gap + 1) * i * 512;
    std::vector<uint8_t> t(static_cast<size_t>(square * size));
    // fractal j, row k, element e of the output
    int64_t fractals = size == 2 ? 1 : 2, rows = 16, cols = 512 / size / 16;
    for (int64_t j = 0; j < fractals; ++j)
      for (int64_t k = 0; k < rows; ++k)
        for (int64_t e = 0; e < cols; ++e) {
          int64_t r = size == 4 ? 8 * j + e : e, c = size == 4 ? k : 16 * j + k;  // transpose: out(j, k, e) = S[r][c]
          std::memcpy(t.data() + (j * rows * cols + k * cols + e) * size, sq + at(r, c) * size,
                      static_cast<size_t>(size));
        }
    for (int64_t j = 0; j < fractals; ++j) std::memcpy(out + j * (frac_gap + 1) * 512, t.data() + j * 512, 512);
  }
}

// LoadData2dTransposeParamsV2 (Ascend 950PR/950DT): repeat i's square starts at fractal start_index +/- i *
// src_stride (512-byte units); a 1-byte square's second 16 x 32 fractal is src_frac_gap fractals after the end of
// the first. Transposed as in exec_LoadDataTranspose into one fractal (2-byte types) or two, dst_frac_gap apart.
// Its 4-byte iterations (four 16 x 8 fractals each, LoadDataWithTranspose.md table 4) are not modelled.
void exec_LoadDataTransposeV2(Block& b, const Op& op, const RtValue* in, RtValue*) {
  if (!b.platform().load_transpose_v2)
    fail(ASC_ERR_UNSUPPORTED, op.loc,
         "load_data_with_transpose: {} (Atlas A2/A3) has no LoadDataWithTranspose with LoadData2dTransposeParamsV2 "
         "(Ascend C has it on Ascend 950PR/950DT only); use asc.LoadData2dTransposeParams",
         b.platform().name);
  int64_t size = dtype_size(dtype(b, op, 0));
  if (size == 4)
    fail(ASC_ERR_UNSUPPORTED, op.loc,
         "load_data_with_transpose: the Model does not implement LoadData2dTransposeParamsV2 for 4-byte types (an "
         "iteration of four 16 x 8 fractals); use asc.LoadData2dTransposeParams");
  int64_t start = in[2].i, repeats = in[3].i, stride = in[4].i, gap = in[5].i, frac_gap = in[6].i;
  int64_t side = size == 1 ? 32 : 16, fractals = size == 1 ? 2 : 1;
  const uint8_t* src = b.effect_ptr(0);
  uint8_t* dst = b.effect_ptr(1);
  for (int64_t i = 0; i < repeats; ++i) {
    const uint8_t* first = src + (in[8].i ? start - i * stride : start + i * stride) * 512;
    uint8_t square[1024], t[1024];
    std::memcpy(square, first, 512);
    if (fractals == 2) std::memcpy(square + 512, first + (in[7].i + 1) * 512, 512);
    for (int64_t r = 0; r < side; ++r)  // t[r][c] = square[c][r]
      for (int64_t c = 0; c < side; ++c) std::memcpy(t + (r * side + c) * size, square + (c * side + r) * size, size);
    uint8_t* out = dst + (gap + 1) * i * 512;
    for (int64_t j = 0; j < fractals; ++j) std::memcpy(out + j * (frac_gap + 1) * 512, t + j * 512, 512);
  }
}

namespace {

// Atlas A2/A3's Mmad dtypes (float32 <- float16, bfloat16, float32; int32 <- int8); the others the verifier
// takes are the Atlas training series' and inference AI Core's: a launch on a platform without them fails.
void require_mmad_dtypes(const Block& b, const Op& op, DType c, DType a, DType f) {
  bool a2 = (c == DType::Float32 && a != DType::UInt8) || (c == DType::Int32 && a == DType::Int8);
  if (a2 || b.platform().mmad_legacy_dtypes) return;
  fail(ASC_ERR_UNSUPPORTED, op.loc,
       "mmad: {} (Atlas A2/A3) has no mmad of {} x {} into {} (Ascend C lists it for the Atlas training series and "
       "Atlas inference AI Core only); multiply into a float32 (int32 for int8) L0C and convert on the way out "
       "(fixpipe quant_pre F322F16 / DEQF16)",
       b.platform().name, dtype_name(a), dtype_name(f), dtype_name(c));
}

// C[m, n] = init ? sum : C + sum, or bias[n] + sum; each sum taken in double (every product exact) in
// ascending K, then `sum + before` rounded once to the L0C dtype: float32, or float16 (the hardware's internal
// order is not documented: Ascend C warns that this combination misses the 0.1% accuracy bar); integer sums
// are exact, wrapping to int32 / uint32. A's and B's fractals are widened to doubles (A stays in its Zz layout,
// B is turned into rows of N) and mmad_kernel.cpp's vectorised kernel sums them, straight into a
// float32 L0C or into doubles for the other dtypes.
void mmad(Block& b, const Op& op, const RtValue* in, bool with_bias) {
  size_t base = with_bias ? 4 : 3;
  int64_t m = in[base].i, n = in[base + 1].i, k = in[base + 2].i;
  bool init = !with_bias && in[base + 3].i != 0;
  DType ad = dtype(b, op, 1), bd = dtype(b, op, 2), cd = dtype(b, op, 0);
  require_mmad_dtypes(b, op, cd, ad, bd);
  if (m <= 0 || n <= 0 || k <= 0) return;  // the effects: no bytes read or written
  int64_t c0 = 32 / dtype_size(ad), k1 = ceil_div(k, c0), m1 = ceil_div(m, 16);
  int64_t c_size = dtype_size(cd);
  const uint8_t* bias = with_bias ? b.effect_ptr(2) : nullptr;
  uint8_t* c = b.effect_ptr(3);
  static thread_local std::vector<double> zz, cols, sums;
  zz.resize(static_cast<size_t>(m1 * k1 * 16 * c0));
  cols.resize(static_cast<size_t>(k * n));
  widen_to_double(ad, b.effect_ptr(0), zz.data(), m1 * k1 * 16 * c0);
  unpack_zn(bd, b.effect_ptr(1), n, k, cols.data());
  const CubeModes& modes = b.cube_modes();
  if (modes.hf32 && ad == DType::Float32) {
    for (double& x : zz) x = hf32(x, modes.hf32_towards_zero);
    for (double& x : cols) x = hf32(x, modes.hf32_towards_zero);
  }
  MmadA a{zz.data(), k1 * 16 * c0, c0, c0, 16 * c0};
  MmadOut out;
  if (cd == DType::Float32) {  // float(sum + before) into L0C's Nz fractals, ceil16(m) rows each
    out.l0c = c;
    out.fractal_stride = m1 * 16 * 16;
    out.bias = bias;
    out.accumulate = !bias && !init;
    mmad_sums(a, cols.data(), n, out, m, n, k);
    return;
  }
  sums.resize(static_cast<size_t>(m * n));
  out.sums = sums.data();
  out.lds = n;
  mmad_sums(a, cols.data(), n, out, m, n, k);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double sum = sums[static_cast<size_t>(i * n + j)];
      uint8_t* at = c + ((j / 16) * m1 * 16 * 16 + i * 16 + j % 16) * c_size;
      const uint8_t* prev = bias ? bias + j * c_size : (!init ? at : nullptr);
      double before = prev ? element(prev, cd) : 0.0;
      RtValue v;
      if (dtype_is_float(cd)) {
        v.f = cd == DType::Float16 ? static_cast<double>(static_cast<_Float16>(sum + before))
                                   : static_cast<double>(static_cast<float>(sum + before));
      } else {  // exact in double (k * 255 * 255 < 2^53), wrapping like the 32-bit accumulator
        uint32_t bits = static_cast<uint32_t>(static_cast<int64_t>(sum) + static_cast<int64_t>(before));
        v.i = cd == DType::UInt32 ? static_cast<int64_t>(bits) : static_cast<int64_t>(static_cast<int32_t>(bits));
        v.f = static_cast<double>(v.i);
      }
      store_scalar(at, cd, v);
    }
}

// QuantModes the Model implements: 0 NoQuant, 1 F322F16, 2 F322BF16, 3 DEQF16 (int32 * the scalar's float scale).
// QuantMode_t on Atlas A2 (V: one quant word per output column, from an L1 tensor).
enum Quant : int64_t { kNoQuant, kF322F16, kF322BF16, kDeqF16, kVDeqF16, kQF322B8, kVQF322B8, kReq8, kVReq8 };

bool is_vector_quant(int64_t q) { return q == kVDeqF16 || q == kVQF322B8 || q == kVReq8; }

void check_quant(const Op& op, int64_t quant, DType from, DType to, bool has_tensor) {
  bool b8 = to == DType::Int8 || to == DType::UInt8;
  bool ok = (quant == kNoQuant && from == to) ||
            (quant == kF322F16 && from == DType::Float32 && to == DType::Float16) ||
            (quant == kF322BF16 && from == DType::Float32 && to == DType::BFloat16) ||
            ((quant == kDeqF16 || quant == kVDeqF16) && from == DType::Int32 && to == DType::Float16) ||
            ((quant == kQF322B8 || quant == kVQF322B8) && from == DType::Float32 && b8) ||
            ((quant == kReq8 || quant == kVReq8) && from == DType::Int32 && b8);
  if (!ok)
    fail(ASC_ERR_INVALID_ARGUMENT, op.loc,
         "fixpipe: quant_pre {} does not turn {} into {} (NoQuant keeps the dtype; F322F16 / F322BF16: float32 to "
         "float16 / bfloat16; (V)DEQF16: int32 to float16; (V)QF322B8_PRE: float32 to int8 / uint8; (V)REQ8: int32 "
         "to int8 / uint8)",
         quant, dtype_name(from), dtype_name(to));
  if (is_vector_quant(quant) != has_tensor)
    fail(ASC_ERR_INVALID_ARGUMENT, op.loc,
         has_tensor ? "fixpipe: a quantisation tensor (cbuf_workspace) goes with VDEQF16, VQF322B8_PRE or VREQ8 only, "
                      "not quant_pre {}"
                    : "fixpipe: quant_pre {} takes one quant word per column: pass them as cbuf_workspace, a uint64 "
                      "LocalTensor in L1 (fixpipe(dst, src, cbuf_workspace, params))",
         quant);
}

float as_float(uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

// One L0C element through quant_pre and ReLU. A quant word holds M1 in bits
// 13..31 (a float with 10 mantissa bits), N in 32..35 (a shift of N + 1), the
// mode-control bit 36 (int32 input: shift right by N + 1 and saturate to
// int16 first), a 9-bit signed offset in 37..45 and bit 46, a signed (int8)
// rather than unsigned (uint8) result. Non-negative values are scaled by M1,
// negative ones by M2: M1 too, or 0 with ReLU.
RtValue quantise(int64_t quant, DType from, DType to, const uint8_t* p, uint64_t word, bool relu) {
  RtValue v;
  if (quant == kNoQuant || quant == kF322F16 || quant == kF322BF16) {
    if (from == DType::Int32) {
      int32_t x;
      std::memcpy(&x, p, 4);
      v.i = relu && x < 0 ? 0 : x;
      v.f = static_cast<double>(v.i);
    } else {
      float x;
      std::memcpy(&x, p, 4);
      v.f = relu && x < 0 ? 0.0 : x;
    }
    return v;
  }
  float m1 = as_float(static_cast<uint32_t>(word & 0xFFFFE000u)), m2 = relu ? 0.0f : m1;
  float x;
  if (from == DType::Int32) {
    int32_t i;
    std::memcpy(&i, p, 4);
    if ((word >> 36) & 1) i = std::clamp<int32_t>(i >> (((word >> 32) & 0xF) + 1), -32768, 32767);
    x = static_cast<float>(i);
  } else {
    std::memcpy(&x, p, 4);
  }
  x = x >= 0 ? x * m1 : x * m2;
  if (to == DType::Float16) {  // DEQF16 saturates: no inf
    v.f = std::clamp(static_cast<double>(x), -65504.0, 65504.0);
    return v;
  }
  auto offset = static_cast<int64_t>((word >> 37) & 0x1FF);
  if (offset >= 256) offset -= 512;
  double q = std::clamp(std::nearbyint(static_cast<double>(x)), -256.0, 255.0) + static_cast<double>(offset);
  bool is_signed = (word >> 46) & 1;
  v.i = static_cast<int64_t>(std::clamp(q, is_signed ? -128.0 : 0.0, is_signed ? 127.0 : 255.0));
  v.f = static_cast<double>(v.i);
  return v;
}

// L0C -> GM: element (m, n) of each of nd_num matrices, converted by quant_pre,
// ReLU'd if relu_en; NZ2ND writes dst[m * dst_stride + n], NZ2NZ keeps 16-wide
// fractals. `words`: the per-column quant words of the vector modes.
void fixpipe(Block& b, const Op& op, const RtValue* in, const uint8_t* words) {
  DType from = dtype(b, op, 1), to = dtype(b, op, 0);
  int64_t quant = in[6].i, n = in[2].i, m = in[3].i, nd = std::max<int64_t>(in[8].i, 1);
  check_quant(op, quant, from, to, words != nullptr);
  uint64_t scalar = op.attr_int(1) ? b.fixpipe_quant_scalar() : static_cast<uint64_t>(in[7].i);
  int64_t out_size = dtype_size(to);
  bool relu = in[11].i != 0, nz2nd = op.attr_int(0) != 0;
  const uint8_t* src = b.effect_ptr(0);
  uint8_t* dst = b.effect_ptr(1);
  for (int64_t i = 0; i < nd; ++i)
    for (int64_t r = 0; r < m; ++r)
      for (int64_t c = 0; c < n; ++c) {
        const uint8_t* p = src + (i * in[9].i * 256 + (c / 16) * in[4].i * 16 + r * 16 + c % 16) * 4;
        int64_t at = nz2nd ? (i * in[10].i + r * in[5].i + c) * out_size
                           : r * 16 * out_size + (c / 16) * in[5].i * 32 + (c % 16) * out_size;
        uint64_t word = scalar;
        if (words) std::memcpy(&word, words + c * 8, 8);
        store_scalar(dst + at, to, quantise(quant, from, to, p, word, relu));
      }
}

}  // namespace

void exec_Mmad(Block& b, const Op& op, const RtValue* in, RtValue*) { mmad(b, op, in, false); }
void exec_MmadBias(Block& b, const Op& op, const RtValue* in, RtValue*) { mmad(b, op, in, true); }
void exec_MmadHalf(Block& b, const Op& op, const RtValue* in, RtValue*) { mmad(b, op, in, false); }
void exec_MmadHalfBias(Block& b, const Op& op, const RtValue* in, RtValue*) { mmad(b, op, in, true); }

void exec_Fixpipe(Block& b, const Op& op, const RtValue* in, RtValue*) { fixpipe(b, op, in, nullptr); }
void exec_FixpipeVectorQuant(Block& b, const Op& op, const RtValue* in, RtValue*) {
  fixpipe(b, op, in, b.effect_ptr(2));
}

// L0C -> L1: NZ2NZ only on Atlas A2/A3 (NZ2ND too on Ascend 950, a dav-c310 row: the rows m_size x n_size,
// dst_stride elements apart), and never NoQuant (Ascend C: "此通路不支持NoQuant模式").
void exec_FixpipeToL1(Block& b, const Op& op, const RtValue* in, RtValue*) {
  if (op.attr_int(0) && b.platform().arch != Arch::C310)
    fail(ASC_ERR_UNSUPPORTED, op.loc,
         "data_copy L0C -> L1: {} (Atlas A2/A3) copies NZ to NZ only; nz2nd_en is Ascend 950's", b.platform().name);
  if (in[6].i == kNoQuant)
    fail(ASC_ERR_INVALID_ARGUMENT, op.loc,
         "data_copy L0C -> L1: quant_pre NoQuant is not supported on this path; float32 to float16 / bfloat16 is "
         "F322F16 / F322BF16, int32 to float16 DEQF16");
  fixpipe(b, op, in, nullptr);
}

namespace {

// One vector core's share of a fixpipe into the Unified Buffer: its bytes at their UB addresses.
struct UbShare {
  std::vector<uint8_t> bytes;  // from the lowest address written to the highest
  std::vector<bool> written;   // per byte
  uint64_t base = 0;           // UB address of bytes[0]
};

void check_fixpipe_ub(Block& b, const Op& op, const RtValue* in) {
  const char* what = "fixpipe L0C -> UB";
  if (b.platform().arch != Arch::C310)
    fail(ASC_ERR_UNSUPPORTED, op.loc,
         "{}: {} (Atlas A2/A3) has no path from L0C to the Unified Buffer (Ascend C has Fixpipe into UB on Ascend "
         "950PR/950DT only); fixpipe into GM and copy GM -> UB on the vector core",
         what, b.platform().name);
  b.require_group_write(op, what, "the Unified Buffer of the cube core's vector cores", CoreKind::AIC);
  KernelType type = b.kernel().options.kernel_type;
  int64_t n = in[2].i, m = in[3].i, quant = in[6].i, dual = in[12].i, sub = in[13].i,
          size = dtype_size(dtype(b, op, 0));
  bool nz2nd = op.attr_int(0) != 0, relu = in[11].i != 0;
  int64_t vector_cores = type == KernelType::MixAic1_2 ? 2 : 1;
  if (dual < 0 || dual > 2)
    fail(ASC_ERR_INVALID_ARGUMENT, op.loc,
         "{}: dual_dst_ctl {} is not 0 (one vector core), 1 (split M) or 2 (split N); 3 is reserved", what, dual);
  if (sub != 0 && sub != 1) fail(ASC_ERR_INVALID_ARGUMENT, op.loc, "{}: sub_block_id {} is not 0 or 1", what, sub);
  if ((dual != 0 || sub != 0) && vector_cores == 1)
    fail(ASC_ERR_INVALID_ARGUMENT, op.loc,
         "{}: a MIX_AIC_1_1 kernel's cube core has one vector core (sub-block 0); dual_dst_ctl {} and sub_block_id {} "
         "need MIX_AIC_1_2",
         what, dual, sub);
  if (dual != 0 && (quant != kNoQuant || relu))
    fail(ASC_ERR_INVALID_ARGUMENT, op.loc,
         "{}: dual_dst_ctl {} works with NoQuant and without ReLU only (Ascend C: dual destination mode is for plain "
         "NZ2NZ / NZ2ND moves with every other fixpipe function bypassed)",
         what, dual);
  if (dual == 1 && m % 2 != 0)
    fail(ASC_ERR_INVALID_ARGUMENT, op.loc, "{}: dual_dst_ctl 1 splits M in halves: m_size {} must be even", what, m);
  if (dual == 2 && n % 32 != 0)
    fail(ASC_ERR_INVALID_ARGUMENT, op.loc, "{}: dual_dst_ctl 2 splits N in halves: n_size {} must be a multiple of 32",
         what, n);
  if (nz2nd ? (n * size) % 32 != 0 : n % 16 != 0)
    fail(ASC_ERR_INVALID_ARGUMENT, op.loc,
         nz2nd ? "{}: NZ2ND rows must fill 32-byte blocks: n_size {} x {} bytes is not a multiple of 32"
               : "{}: NZ2NZ moves whole 16-column fractals: n_size {} is not a multiple of 16",
         what, n, size);
  if (in[5].i <= 0) fail(ASC_ERR_INVALID_ARGUMENT, op.loc, "{}: dst_stride must not be 0", what);
  if (in[0].addr % 32 != 0)
    fail(ASC_ERR_MISALIGNED, op.loc, "{}: the Unified Buffer address {} is not 32-byte aligned", what, in[0].addr);
}

}  // namespace

// L0C -> the Unified Buffer of a vector core of this cube core's group (Ascend 950PR/950DT,
// FixpipeParamsArch3510): element (m, n) of each of nd_num matrices (src_nd_stride x 16 elements apart) through
// quant_pre and ReLU, NZ2ND to r * dst_stride + c (matrix i at i * dst_nd_stride) or NZ2NZ to (c / 16) *
// dst_stride + r * 16 + c % 16 (dst_stride in elements). dual_dst_ctl 0 sends it all to sub-block sub_block_id;
// 1 sends rows [0, m/2) to sub-block 0 and [m/2, m) to 1 (each from row 0 of its UB); 2 sends columns [0, n/2)
// and [n/2, n) likewise (L0C到UB数据搬运（Fixpipe）.md; the fixpipe_l0c2ub sample: M split with dst_stride N, N
// split with dst_stride N / 2). Each share is handed to the CrossCore; the vector core copies it into its UB at
// the cross-core wait that makes it visible (ub_delivery.cpp).
void exec_FixpipeToUb(Block& b, const Op& op, const RtValue* in, RtValue*) {
  check_fixpipe_ub(b, op, in);
  DType from = dtype(b, op, 1), to = dtype(b, op, 0);
  int64_t n = in[2].i, m = in[3].i, quant = in[6].i, dual = in[12].i, sub = in[13].i;
  bool nz2nd = op.attr_int(0) != 0, relu = in[11].i != 0;
  int64_t nd = nz2nd ? std::max<int64_t>(in[8].i, 1) : 1, dst_stride = in[5].i, size = dtype_size(to);
  check_quant(op, quant, from, to, false);
  if (n == 0 || m == 0) return;
  const uint8_t* src = b.effect_ptr(0);
  int64_t half_m = dual == 1 ? m / 2 : m, half_n = dual == 2 ? n / 2 : n;
  // each share's element offsets from the tensor's start, then its bytes
  auto target = [&](int64_t r, int64_t c) { return dual == 1 ? r / half_m : dual == 2 ? c / half_n : sub; };
  auto offset = [&](int64_t i, int64_t r, int64_t c) {
    r %= half_m, c %= half_n;
    return nz2nd ? i * in[10].i + r * dst_stride + c : (c / 16) * dst_stride + r * 16 + c % 16;
  };
  int64_t highest = 0;
  for (int64_t i = 0; i < nd; ++i) highest = std::max(highest, offset(i, half_m - 1, half_n - 1) + 1);
  if (!nz2nd) highest = std::max(highest, offset(0, half_m - 1, 15) + 1);
  uint64_t ub_bytes = memory_bytes(b.platform(), Memory::UB), start = static_cast<uint64_t>(in[0].addr);
  uint64_t tensor_bytes = in[0].len == kUnknownLength ? ub_bytes - start : in[0].len * static_cast<uint64_t>(size);
  uint64_t reach = static_cast<uint64_t>(highest * size);
  if (reach > tensor_bytes || start + reach > ub_bytes)
    fail(ASC_ERR_OUT_OF_BOUNDS, op.loc,
         "fixpipe L0C -> UB writes {} bytes from UB address {} into each destination, but the destination tensor "
         "has {} bytes (the Unified Buffer {})",
         reach, start, tensor_bytes, ub_bytes);
  UbShare shares[2];
  for (UbShare& s : shares) {
    s.bytes.assign(reach, 0);
    s.written.assign(reach, false);
    s.base = start;
  }
  for (int64_t i = 0; i < nd; ++i)
    for (int64_t r = 0; r < m; ++r)
      for (int64_t c = 0; c < n; ++c) {
        const uint8_t* p = src + (i * in[9].i * 16 + (c / 16) * in[4].i * 16 + r * 16 + c % 16) * 4;
        UbShare& s = shares[target(r, c)];
        auto at = static_cast<size_t>(offset(i, r, c) * size);
        store_scalar(s.bytes.data() + at, to, quantise(quant, from, to, p, static_cast<uint64_t>(in[7].i), relu));
        std::fill(s.written.begin() + static_cast<std::ptrdiff_t>(at),
                  s.written.begin() + static_cast<std::ptrdiff_t>(at + size), true);
      }
  for (uint32_t k = 0; k < 2; ++k) {
    CoreDelivery d;
    d.op = &op;
    for (size_t a = 0; a < shares[k].written.size();) {  // the maximal runs of written bytes
      if (!shares[k].written[a]) {
        ++a;
        continue;
      }
      size_t e = a;
      while (e < shares[k].written.size() && shares[k].written[e]) ++e;
      d.runs.emplace_back(start + a, start + e);
      d.data.insert(d.data.end(), shares[k].bytes.begin() + static_cast<std::ptrdiff_t>(a),
                    shares[k].bytes.begin() + static_cast<std::ptrdiff_t>(e));
      a = e;
    }
    if (d.runs.empty()) continue;
    bool found = false;
    for (const CoreInstance& c : b.cross().cores())
      if (c.group == b.core().group && c.kind == CoreKind::AIV && c.sub_block_idx == k) {
        d.to = c.index;
        found = true;
      }
    if (!found) fail(ASC_ERR_INTERNAL, op.loc, "fixpipe L0C -> UB: the group has no vector core {}", k);
    b.cross().deliver(b.core(), std::move(d));
  }
}

void exec_SetFixpipePreQuantFlag(Block& b, const Op&, const RtValue* in, RtValue*) {
  b.fixpipe_quant_scalar() = static_cast<uint64_t>(in[0].i);
}

void exec_CopyL1ToBt(Block& b, const Op& op, const RtValue* in, RtValue*) {
  DType dst = dtype(b, op, 0), src = dtype(b, op, 1);
  size_t n = static_cast<size_t>(in[2].i);
  if (dst == src) {
    std::memmove(b.effect_ptr(1), b.effect_ptr(0), n * dtype_size(dst));
    return;
  }
  // a half / bfloat16 bias widened to float32 (exact), read whole before the table is written
  std::vector<float> wide(n);
  const uint8_t* from = b.effect_ptr(0);
  for (size_t i = 0; i < n; ++i) {
    if (src == DType::Float16) {
      wide[i] = static_cast<float>(*reinterpret_cast<const _Float16*>(from + 2 * i));
    } else {
      uint16_t bits;
      std::memcpy(&bits, from + 2 * i, 2);
      uint32_t word = static_cast<uint32_t>(bits) << 16;
      std::memcpy(&wide[i], &word, 4);
    }
  }
  std::memcpy(b.effect_ptr(1), wide.data(), n * 4);
}

}  // namespace asc::sim
