// Rows of the cube unit. Layouts (C0 = 32 / sizeof(T) elements, fractals of
// 16 x C0 = 512 bytes): L1 holds Nz, L0A Zz, L0B Zn, L0C Nz of 16 x 16
// fp32/int32 (1 KiB fractals; float16: 512 bytes).
#include <algorithm>

#include "ir/op_rows.h"
#include "ir/row_rules.h"

namespace asc::rows {
namespace {

int64_t c0_of(int64_t size) { return 32 / size; }

// Every dtype the cube's data movers take.
constexpr uint32_t kMoved = dtype_bits({DType::Int8, DType::UInt8, DType::Int16, DType::UInt16, DType::Int32,
                                        DType::UInt32, DType::Float16, DType::BFloat16, DType::Float32});

void check_nd2nz(const OpView& v) {
  require_position(v, 0, Memory::L1, "dst", "A1, B1 or C1");
  require_same_dtype(v, 0, 1);
  require_row_dtype(v, 0);
}

// data_copy.nd2nz operands: dst, src, nd_num, n_value, d_value, src_nd_matrix_stride, src_d_value,
// dst_nz_c0_stride, dst_nz_n_stride, dst_nz_matrix_stride. Effect 0 reads src (GM), 1 writes dst (L1).
int64_t nd2nz_extent(const Op& op, const int64_t* in, size_t index, int64_t size) {
  int64_t nd = in[2], n = in[3], d = in[4];
  if (index == 0 && (nd > 4095 || n > 16384 || d > 65535))
    fail(ASC_ERR_INVALID_ARGUMENT, op.loc,
         "Nd2NzParams: nd_num {} must be <= 4095, n_value {} <= 16384, d_value {} <= 65535", nd, n, d);
  if (nd == 0 || n == 0 || d == 0) return 0;
  int64_t c0 = c0_of(size);
  if (index == 0) return ((nd - 1) * in[5] + (n - 1) * in[6] + d) * size;
  return ((nd - 1) * in[9] + (ceil_div(d, c0) - 1) * in[7] * c0 + (n - 1) * in[8] * c0 + c0) * size;
}

void check_nd2nz_from_ub(const OpView& v) {
  check_nd2nz(v);
  require_ub_position(v, 1, "src");
}

void check_nz2nd(const OpView& v) {
  if (v.operand_type(0).kind != TypeKind::GlobalTensor) type_error(v, "dst must be a GlobalTensor");
  require_ub_position(v, 1, "src");
  require_same_dtype(v, 0, 1);
  require_row_dtype(v, 0);
}

// data_copy.nz2nd operands: dst, src, nd_num, n_value, d_value, src_nd_matrix_stride (256-element units),
// src_n_stride (16-element units), dst_d_stride, dst_nd_matrix_stride (elements). Effect 0 reads src, 1 writes dst.
int64_t nz2nd_extent(const Op& op, const int64_t* in, size_t index, int64_t size) {
  int64_t nd = in[2], n = in[3], d = in[4];
  if (index == 0 && (nd > 4095 || n > 16384 || d > 65535 || d % 16 != 0))
    fail(ASC_ERR_INVALID_ARGUMENT, op.loc,
         "Nz2NdParamsFull: d_value {} must be a multiple of 16 up to 65535, n_value {} <= 16384, nd_num {} <= 4095", d,
         n, nd);
  if (nd == 0 || n == 0 || d == 0) return 0;
  if (index == 0) return ((nd - 1) * in[5] * 256 + ((d - 1) / 16) * in[6] * 16 + (n - 1) * 16 + 16) * size;
  return ((nd - 1) * in[8] + (n - 1) * in[7] + d) * size;
}

void check_load_data(const OpView& v) {
  Position p = v.operand_type(0).position;
  if (p != Position::A2 && p != Position::B2)
    type_error(v, fmt::format("dst must be a LocalTensor at TPosition.A2 (L0A) or B2 (L0B), not {}", position_name(p)));
  require_position(v, 1, Memory::L1, "src", "A1 or B1");
  require_same_dtype(v, 0, 1);
  require_row_dtype(v, 0);
}

// load_data operands: dst, src, start_index, repeat_times, src_stride, sid, dst_gap, if_transpose, addr_mode.
// Fractal i of the source is start_index +/- i * src_stride; of the destination (dst_gap + 1) * i.
int64_t load_data_extent(const Op& op, const int64_t* in, size_t index, int64_t) {
  int64_t start = in[2], repeats = in[3], stride = in[4], gap = in[6];
  if (index == 0 && (repeats > 255 || start > 65535 || stride > 65535 || gap > 65535))
    fail(ASC_ERR_INVALID_ARGUMENT, op.loc,
         "LoadData2DParams: repeat_times {} must be 0..255, start_index {}, src_stride {} and dst_gap {} 0..65535",
         repeats, start, stride, gap);
  if (repeats == 0) return 0;
  if (index == 1) return ((repeats - 1) * (gap + 1) + 1) * 512;
  int64_t last = in[8] ? start - (repeats - 1) * stride : start + (repeats - 1) * stride;
  if (last < 0)
    fail(ASC_ERR_OUT_OF_BOUNDS, op.loc, "load_data: with addr_mode 1 fractal {} - {} x {} is before the tensor", start,
         repeats - 1, stride);
  return (std::max(start, last) + 1) * 512;
}

// load_data_with_transpose operands: dst, src, start_index, repeat_times,
// src_stride, dst_gap, dst_frac_gap, addr_mode. A repeat transposes one square
// (16 x 16 for 2- and 4-byte types, 32 x 32 for 1-byte: 1, 2 and 2 fractals)
// into that many fractals, dst_frac_gap fractals apart.
int64_t transpose_square_bytes(int64_t size) { return size == 2 ? 512 : 1024; }

int64_t load_transpose_extent(const Op& op, const int64_t* in, size_t index, int64_t size) {
  int64_t start = in[2], repeats = in[3], stride = in[4], gap = in[5], frac_gap = in[6];
  if (index == 0 && (repeats > 255 || start > 65535 || stride > 65535 || gap > 65535 || frac_gap > 65535))
    fail(ASC_ERR_INVALID_ARGUMENT, op.loc,
         "LoadData2dTransposeParams: repeat_times {} must be 0..255, the others 0..65535", repeats);
  if (repeats == 0) return 0;
  int64_t fractals = size == 2 ? 1 : 2;
  if (index == 1) return ((repeats - 1) * (gap + 1) + 1) * 512 + (fractals - 1) * (frac_gap + 1) * 512;
  int64_t last = in[7] ? start - (repeats - 1) * stride : start + (repeats - 1) * stride;
  if (last < 0)
    fail(ASC_ERR_OUT_OF_BOUNDS, op.loc,
         "load_data_with_transpose: with addr_mode 1 square {} - {} x {} is before the "
         "tensor",
         start, repeats - 1, stride);
  return (std::max(start, last) + 1) * transpose_square_bytes(size);
}

void check_load_transpose_v2(const OpView& v) {
  if (v.operand_type(0).position != Position::B2)
    type_error(v, fmt::format("LoadData2dTransposeParamsV2 loads L1 -> L0B only: dst must be at TPosition.B2, not {}",
                              position_name(v.operand_type(0).position)));
  require_position(v, 1, Memory::L1, "src", "B1");
  require_same_dtype(v, 0, 1);
  require_row_dtype(v, 0);
}

// load_data_with_transpose.v2 operands: dst, src, start_index, repeat_times, src_stride, dst_gap, dst_frac_gap,
// src_frac_gap, addr_mode. start_index and src_stride count 512-byte fractals; a 1-byte square's second source
// fractal is src_frac_gap fractals after the end of its first.
int64_t load_transpose_v2_extent(const Op& op, const int64_t* in, size_t index, int64_t size) {
  int64_t start = in[2], repeats = in[3], stride = in[4], gap = in[5], frac_gap = in[6], src_gap = in[7];
  if (index == 0 && (repeats > 255 || start > 65535 || stride > 65535 || gap > 65535 || frac_gap > 65535 ||
                     src_gap > 65535 || in[8] > 255))
    fail(ASC_ERR_INVALID_ARGUMENT, op.loc,
         "LoadData2dTransposeParamsV2: repeat_times {} must be 0..255, addr_mode 0..255, the others 0..65535", repeats);
  if (repeats == 0) return 0;
  bool two = size == 1;  // 1-byte squares are two fractals, 2-byte squares one
  if (index == 1) return ((repeats - 1) * (gap + 1) + 1) * 512 + (two ? (frac_gap + 1) * 512 : 0);
  int64_t last = in[8] ? start - (repeats - 1) * stride : start + (repeats - 1) * stride;
  if (last < 0)
    fail(ASC_ERR_OUT_OF_BOUNDS, op.loc,
         "load_data_with_transpose: with addr_mode 1 fractal {} - {} x {} is before the tensor", start, repeats - 1,
         stride);
  return (std::max(start, last) + 1) * 512 + (two ? (src_gap + 1) * 512 : 0);
}

bool is_half_mmad(const Op& op) { return op.code == OpCode::MmadHalf || op.code == OpCode::MmadHalfBias; }
bool has_bias(const Op& op) { return op.code == OpCode::MmadBias || op.code == OpCode::MmadHalfBias; }

// mmad: the (dst, fm, filter) dtypes of Ascend C's Mmad tables. Atlas A2/A3: float32 <- float16, bfloat16 or
// float32; int32 <- int8. The Atlas training series and Atlas inference AI Core also have float16 <- float16,
// uint32 <- uint8 x uint8 (training), int32 <- uint8 x uint8 (inference) and int32 <- uint8 x int8: the verifier
// takes them (a platform with Platform::mmad_legacy_dtypes runs them; an A2/A3 launch fails). "Mmad 支持的精度类型
// 组合" (https://github.com/cannmirror/asc-devkit docs/zh/api/SIMD-API/基础API/矩阵计算（ISASI）/Mmad计算/Mmad.md,
// tables 7, 9, 10). A float16 L0C is the mmad.f16 rows' (their L0C fractals are 16 x 16 x 2 = 512 bytes).
void check_mmad(const OpView& v) {
  require_position(v, 0, Memory::L0C, "dst", "CO1");
  if (v.operand_type(1).position != Position::A2) type_error(v, "fm (the left matrix) must be at TPosition.A2 (L0A)");
  if (v.operand_type(2).position != Position::B2)
    type_error(v, "filter (the right matrix) must be at TPosition.B2 (L0B)");
  DType c = v.operand_type(0).dtype, a = v.operand_type(1).dtype, b = v.operand_type(2).dtype;
  bool mixed = a == DType::UInt8 && b == DType::Int8;
  if (a != b && !mixed)
    type_error(v, fmt::format("fm is {} but filter is {} (only uint8 x int8 mixes)", dtype_name(a), dtype_name(b)));
  bool a2 = (c == DType::Float32 && (a == DType::Float16 || a == DType::Float32 || a == DType::BFloat16)) ||
            (c == DType::Int32 && a == DType::Int8 && b == DType::Int8);
  bool legacy = (c == DType::Float16 && a == DType::Float16) || (c == DType::UInt32 && a == DType::UInt8 && !mixed) ||
                (c == DType::Int32 && a == DType::UInt8);
  if (!a2 && !legacy)
    type_error(v, fmt::format("mmad of {} x {} into {} is not one of Mmad's dtype combinations (Atlas A2/A3: float32 "
                              "<- float16, bfloat16 or float32; int32 <- int8; the Atlas training series and inference "
                              "AI Core also: float16 <- float16, uint32 or int32 <- uint8, int32 <- uint8 x int8)",
                              dtype_name(a), dtype_name(b), dtype_name(c)));
  if ((c == DType::Float16) != is_half_mmad(v.op))
    type_error(v, c == DType::Float16 ? "a float16 dst is mmad.f16's (mmad.bias_f16's): its L0C fractals are 512 bytes"
                                      : "mmad.f16 / mmad.bias_f16 write a float16 dst");
  if (has_bias(v.op)) {
    require_position(v, 3, Memory::BT, "bias", "C2");
    if (v.operand_type(3).dtype != c)
      type_error(v, fmt::format("the bias is {} but dst is {}", dtype_name(v.operand_type(3).dtype), dtype_name(c)));
  }
}

// mmad operands: dst, fm, filter, [bias,] m, n, k, [init, source]. Effects: fm, filter, (bias or dst read), dst.
// `size` is fm's element size; an L0C element is 2 bytes (mmad.f16) or 4.
int64_t mmad_extent(const Op& op, const int64_t* in, size_t index, int64_t size) {
  size_t base = has_bias(op) ? 4 : 3;
  int64_t m = in[base], n = in[base + 1], k = in[base + 2];
  if (index == 0 && (m > 4095 || n > 4095 || k > 4095))
    fail(ASC_ERR_INVALID_ARGUMENT, op.loc, "MmadParams: m {}, n {} and k {} must be 0..4095", m, n, k);
  if (m == 0 || n == 0 || k == 0) return 0;
  int64_t k1 = ceil_div(k, c0_of(size)), c_size = is_half_mmad(op) ? 2 : 4;
  int64_t l0c = ceil_div(m, 16) * ceil_div(n, 16) * 256 * c_size;
  switch (index) {
    case 0: return ceil_div(m, 16) * k1 * 512;
    case 1: return k1 * ceil_div(n, 16) * 512;
    case 2:
      if (has_bias(op)) return n * c_size;  // the bias row
      return in[base + 3] ? 0 : l0c;        // accumulate: dst is read too
    default: return l0c;
  }
}

// One 16 x 16 x C0 fractal multiply per cycle: 16 x 16 x 16 for 2-byte types and 16 x 32 x 16 for int8 (the
// matmul sample: 16 x 16 x 16 float16 per cycle; int8's base blocks twice as deep, baseK 128), and float32 in two
// cycles per 16 x 8 x 16 step (issue 24's figure, from PTO-ISA's cost model; not measured on a board here).
int64_t mmad_work(const Op& op, const int64_t* in, int64_t size) {
  size_t base = has_bias(op) ? 4 : 3;
  int64_t fractals = ceil_div(in[base], 16) * ceil_div(in[base + 1], 16) * ceil_div(in[base + 2], c0_of(size));
  return size == 4 ? 2 * fractals : fractals;
}

void check_fixpipe(const OpView& v) {
  if (v.operand_type(0).kind != TypeKind::GlobalTensor) type_error(v, "dst must be a GlobalTensor");
  require_position(v, 1, Memory::L0C, "src", "CO1");
  if (v.op.code != OpCode::FixpipeVectorQuant) return;
  require_position(v, 12, Memory::L1, "cbuf_workspace", "A1 (L1)");
  if (v.operand_type(12).dtype != DType::UInt64) type_error(v, "cbuf_workspace must be a uint64 LocalTensor");
}

void check_fixpipe_l1(const OpView& v) {
  require_position(v, 0, Memory::L1, "dst", "C1 (L1)");
  require_position(v, 1, Memory::L0C, "src", "CO1");
}

void check_fixpipe_ub(const OpView& v) {
  require_ub_position(v, 0, "dst");
  require_position(v, 1, Memory::L0C, "src", "CO1");
}

// fixpipe operands: dst, src, n_size, m_size, src_stride, dst_stride, quant_pre, deq_scalar, nd_num,
// src_nd_stride, dst_nd_stride, relu_en; attribute nz2nd. Effect 0 reads L0C (4-byte elements), 1 writes dst.
int64_t fixpipe_extent(const Op& op, const int64_t* in, size_t index, int64_t dst_size) {
  int64_t n = in[2], m = in[3], nd = std::max<int64_t>(in[8], 1);
  if (index == 0 && (n > 4095 || m > 65535 || (op.attr_int(0) && m > 8192)))
    fail(ASC_ERR_INVALID_ARGUMENT, op.loc, "FixpipeParams: n_size {} must be <= 4095 and m_size {} <= {}", n, m,
         op.attr_int(0) ? 8192 : 65535);
  if (n == 0 || m == 0) return 0;
  if (index == 2) return n * 8;  // fixpipe.vector_quant: one uint64 quant word per column
  if (index == 0) return ((nd - 1) * in[9] * 256 + ((n - 1) / 16) * in[4] * 16 + (m - 1) * 16 + 16) * 4;
  if (op.attr_int(0)) return ((nd - 1) * in[10] + (m - 1) * in[5] + n) * dst_size;  // NZ2ND
  return (m - 1) * 16 * dst_size + ((n - 1) / 16) * in[5] * 32 + 16 * dst_size;     // NZ2NZ
}

// fixpipe.ub: effect 0 reads L0C. FixpipeParamsArch3510 counts src_nd_stride in C0_SIZE units (16 elements; its
// V220 form on the same path says 16 * C0_SIZE: the Model follows the Arch3510 table); NZ2NZ moves one matrix.
int64_t fixpipe_ub_extent(const Op& op, const int64_t* in, size_t, int64_t) {
  int64_t n = in[2], m = in[3], nd = op.attr_int(0) ? std::max<int64_t>(in[8], 1) : 1;
  if (n > 4095 || m > 65535)
    fail(ASC_ERR_INVALID_ARGUMENT, op.loc, "FixpipeParamsArch3510: n_size {} must be <= 4095 and m_size {} <= 65535", n,
         m);
  if (n == 0 || m == 0) return 0;
  return ((nd - 1) * in[9] * 16 + ((n - 1) / 16) * in[4] * 16 + (m - 1) * 16 + 16) * 4;
}

// fixpipe NZ2ND into GM: m_size rows of n_size elements, dst_stride apart (one ND matrix).
GmRows fixpipe_rows(const Op& op, const int64_t* in, int64_t size) {
  if (!op.attr_int(0) || in[8] > 1) return {};
  return {in[3], in[2] * size, in[5] * size};
}

// Ascend 950's UB -> L1 (DataCopy, copy_ubuf_to_cbuf on MTE3): a vector core's Unified Buffer bytes into its cube
// core's L1, unchanged, in 32-byte blocks (UBToL1连续数据搬运（DataCopy）.md, the data_copy_ub2l1 sample). The L1 is
// another core's: the row declares only the UB read, and the handler checks and writes the destination through the
// cross-core channel (sim/ub_to_l1.cpp).
void check_ub_to_l1(const OpView& v) {
  require_position(v, 0, Memory::L1, "dst", "A1, B1 or C1 (TSCM)");
  require_ub_position(v, 1, "src");
  require_same_dtype(v, 0, 1);
}

// L1 -> the bias table: the same dtype, or a half / bfloat16 bias converted to the float32 table as it moves (the
// Matmul's half bias).
// https://hiascend.com/document/detail/zh/canncommercial/80RC1/apiref/opdevgapi/atlasascendc_api_07_0110.html
void check_l1_to_bt(const OpView& v) {
  require_position(v, 0, Memory::BT, "dst", "C2");
  require_position(v, 1, Memory::L1, "src", "C1");
  DType dst = v.operand_type(0).dtype, src = v.operand_type(1).dtype;
  if (dst == DType::Float32 && (src == DType::Float16 || src == DType::BFloat16)) return;
  require_same_dtype(v, 0, 1);
}

}  // namespace

void define_cube_ops(OpTable& t) {
  t.def(OpCode::CopyNd2Nz, "data_copy.nd2nz")
      .pipe(Pipe::MTE2)
      .operands({K::LocalTensor, K::GlobalTensor})
      .operands(8, K::IntScalar)
      .check(check_nd2nz)
      .reads(1, extent().unaligned())
      .writes(0, extent())
      .extent(nd2nz_extent)
      .cost(CostKind::GmCopy)
      .dtypes(kMoved)
      .ascendc("AscendC::DataCopy", "{api}({0..2}, AscendC::Nd2NzParams({2..10:uint16_t}));");
  // the same from the Unified Buffer (Ascend C: UBToL1 随路转换 ND2NZ, a software copy through the Matmul API's
  // GM workspace, https://github.com/cannmirror/asc-devkit docs/zh/api/SIMD-API/基础API/矩阵计算（ISASI）/
  // 矩阵计算的搬入/矩阵数据搬入至L1-Buffer/UBToL1随路转换-ND2NZ搬运（DataCopy）.md): on MTE3, the UB side
  t.def(OpCode::CopyNd2NzFromUb, "data_copy.nd2nz.ub")
      .pipe(Pipe::MTE3)
      .operands({K::LocalTensor, K::LocalTensor})
      .operands(8, K::IntScalar)
      .check(check_nd2nz_from_ub)
      .reads(1, extent())
      .writes(0, extent())
      .extent(nd2nz_extent)
      .cost(CostKind::GmCopy)
      .dtypes(kMoved)
      .ascendc("AscendC::DataCopy", "{api}({0..2}, AscendC::Nd2NzParams({2..10:uint16_t}));");
  t.def(OpCode::CopyNz2Nd, "data_copy.nz2nd")
      .pipe(Pipe::MTE3)
      .operands({K::GlobalTensor, K::LocalTensor})
      .operands(7, K::IntScalar)
      .check(check_nz2nd)
      .reads(1, extent())
      .writes(0, extent().unaligned())
      .extent(nz2nd_extent)
      .cost(CostKind::GmCopy)
      .dtypes(dtype_bits(
          {DType::Int16, DType::UInt16, DType::Float16, DType::BFloat16, DType::Int32, DType::UInt32, DType::Float32}))
      .ascendc("AscendC::DataCopy", "{api}({0..2}, AscendC::Nz2NdParamsFull({2..9:uint16_t}));");
  // the constructor takes the fields in the IR's order
  t.def(OpCode::LoadData2D, "load_data")
      .pipe(Pipe::MTE1)
      .operands(2, K::LocalTensor)
      .operands(7, K::IntScalar)
      .check(check_load_data)
      .reads(1, extent())
      .writes(0, extent())
      .extent(load_data_extent)
      .cost(CostKind::UbCopy)
      .dtypes(kMoved)
      .ascendc("AscendC::LoadData", "{api}({0..2}, AscendC::LoadData2DParams({2..9:uint16_t}));");
  t.def(OpCode::LoadDataTranspose, "load_data_with_transpose")
      .pipe(Pipe::MTE1)
      .operands(2, K::LocalTensor)
      .operands(6, K::IntScalar)
      .check(check_load_data)
      .reads(1, extent())
      .writes(0, extent())
      .extent(load_transpose_extent)
      .cost(CostKind::UbCopy)
      .dtypes(kMoved)
      .ascendc("AscendC::LoadDataWithTranspose", "{api}({0..2}, AscendC::LoadData2dTransposeParams({2..8:uint16_t}));");
  // LoadDataWithTranspose with LoadData2dTransposeParamsV2: Ascend 950PR/950DT only ("Current version don't
  // support LoadDataWithTranspose using LoadData2dTransposeParamsV2" elsewhere), L1 -> L0B; the verifier takes it
  // and an A2/A3 launch fails (Platform::load_transpose_v2). LoadDataWithTranspose.md table 4
  // (https://github.com/cannmirror/asc-devkit docs/zh/api/SIMD-API/基础API/矩阵计算（ISASI）/矩阵计算的搬入/
  // 矩阵数据搬入至L0-Buffer/LoadDataWithTranspose.md).
  t.def(OpCode::LoadDataTransposeV2, "load_data_with_transpose.v2")
      .pipe(Pipe::MTE1)
      .operands(2, K::LocalTensor)
      .operands(7, K::IntScalar)
      .check(check_load_transpose_v2)
      .reads(1, extent())
      .writes(0, extent())
      .extent(load_transpose_v2_extent)
      .cost(CostKind::UbCopy)
      .dtypes(kMoved)
      .ascendc("AscendC::LoadDataWithTranspose",
               "{api}({0..2}, AscendC::LoadData2dTransposeParamsV2({2..8:uint16_t}, {8} != 0));");
  // mmad operands: dst, fm, filter, [bias,] m, n, k, [init, source]; MmadParams(m, n, k, unitFlag, cmatrixSource,
  // cmatrixInitVal). Accumulating reads dst (or the bias).
  t.def(OpCode::Mmad, "mmad")
      .pipe(Pipe::M)
      .operands(3, K::LocalTensor)
      .operands(5, K::IntScalar)
      .check(check_mmad)
      .reads(1, extent())
      .reads(2, extent())
      .reads(0, extent())
      .writes(0, extent())
      .extent(mmad_extent, 1)
      .work(mmad_work)
      .cost(CostKind::Cube)
      .dtypes(dtype_bits({DType::Float32, DType::Int32, DType::UInt32}))
      .ascendc("AscendC::Mmad", "{api}({0..3}, AscendC::MmadParams({3..6:uint16_t}, 0, {7} != 0, {6} != 0));");
  t.def(OpCode::MmadBias, "mmad.bias")
      .pipe(Pipe::M)
      .operands(4, K::LocalTensor)
      .operands(3, K::IntScalar)
      .check(check_mmad)
      .reads(1, extent())
      .reads(2, extent())
      .reads(3, extent())
      .writes(0, extent())
      .extent(mmad_extent, 1)
      .work(mmad_work)
      .cost(CostKind::Cube)
      .dtypes(dtype_bits({DType::Float32, DType::Int32, DType::UInt32}))
      .ascendc("AscendC::Mmad", "{api}({0..4}, AscendC::MmadParams({4..7:uint16_t}, 0, false, true));");
  // the same with a float16 L0C (the Atlas training series and inference AI Core; not A2/A3)
  t.def_like(OpCode::MmadHalf, "mmad.f16", OpCode::Mmad).dtypes(dtype_bits({DType::Float16}));
  t.def_like(OpCode::MmadHalfBias, "mmad.bias_f16", OpCode::MmadBias).dtypes(dtype_bits({DType::Float16}));
  // fixpipe operands: dst, src, n_size, m_size, src_stride, dst_stride, quant_pre, deq_scalar (a 64-bit word of
  // bits, not a size), nd_num, src_nd_stride, dst_nd_stride, relu_en. Hand-spelled: the quantisation scalar from
  // the register is data_copy with DataCopyCO12DstParams, else Fixpipe with FixpipeParamsV220.
  t.def(OpCode::Fixpipe, "fixpipe")
      .pipe(Pipe::FIX)
      .operands({K::GlobalTensor, K::LocalTensor})
      .operands(10, K::IntScalar)
      .attr_default("nz2nd", 1)
      .attr_default("deq_register", 0)
      .check(check_fixpipe)
      .reads(1, extent())
      .writes(0, extent().unaligned())
      .extent(fixpipe_extent)
      .gm_rows(fixpipe_rows)
      .cost(CostKind::GmCopy)
      .word_operand(7)
      .ascendc("AscendC::Fixpipe");
  // the same, with the per-column quant words (operand 12) read from L1
  t.def_like(OpCode::FixpipeVectorQuant, "fixpipe.vector_quant", OpCode::Fixpipe)
      .operands({K::LocalTensor})
      .reads(12, extent());
  // L0C -> L1 (C1): data_copy with DataCopyCO12DstParams into a LocalTensor, NZ2NZ on Atlas A2/A3 (their NZ2ND
  // is Ascend 950's), a quant_pre other than NoQuant ("此通路不支持NoQuant模式"), the scalar from the register.
  // L0C到L1数据搬运（DataCopy）.md (https://github.com/cannmirror/asc-devkit docs/zh/api/SIMD-API/基础API/
  // 矩阵计算（ISASI）/矩阵计算的搬出/). Hand-spelled as fixpipe's register form.
  t.def(OpCode::FixpipeToL1, "fixpipe.l1")
      .pipe(Pipe::FIX)
      .operands({K::LocalTensor, K::LocalTensor})
      .operands(10, K::IntScalar)
      .attr_default("nz2nd", 0)
      .attr_default("deq_register", 1)
      .check(check_fixpipe_l1)
      .reads(1, extent())
      .writes(0, extent())
      .extent(fixpipe_extent)
      .cost(CostKind::UbCopy)
      .word_operand(7)
      .ascendc("AscendC::DataCopy");
  // L0C -> the Unified Buffer of a vector core of the cube core's group (Ascend 950PR/950DT: Fixpipe with
  // FixpipeParamsArch3510 and a FixpipeConfig whose isToUB is true). Operands: fixpipe's twelve, then dual_dst_ctl
  // (0: the whole matrix to sub-block sub_block_id; 1: rows split in halves, 2: columns split in halves, to
  // sub-blocks 0 and 1) and sub_block_id. dst_stride counts elements in both layouts (FixpipeParamsV220's NZ
  // dst_stride counts 32-byte blocks). The UB is another core's: the row declares only the L0C read, and the
  // handler checks and writes the destination through the cross-core channel (sim/fixpipe_ub.cpp).
  // L0C到UB数据搬运（Fixpipe）.md, 关键特性说明/L0C-Buffer到UB双目标模式.md (https://github.com/cannmirror/asc-devkit
  // docs/zh/api/SIMD-API/基础API/矩阵计算（ISASI）/矩阵计算的搬出/).
  t.def(OpCode::FixpipeToUb, "fixpipe.ub")
      .pipe(Pipe::FIX)
      .operands({K::LocalTensor, K::LocalTensor})
      .operands(12, K::IntScalar)
      .attr_default("nz2nd", 1)
      .check(check_fixpipe_ub)
      .reads(1, extent())
      .extent(fixpipe_ub_extent)
      .cost(CostKind::UbCopy)
      .word_operand(7)
      .ascendc("AscendC::Fixpipe");
  // on the FIX pipe, so that it reaches the copies queued after it and none before
  t.def(OpCode::SetFixpipePreQuantFlag, "set_fix_pipe_pre_quant_flag")
      .pipe(Pipe::FIX)
      .operands({K::IntScalar})
      .ascendc("AscendC::SetFixpipePreQuantFlag", "{api}({0:uint64_t});");
  t.def(OpCode::CopyUbToL1, "data_copy.ub_to_l1")
      .pipe(Pipe::MTE3)
      .operands({K::LocalTensor, K::LocalTensor})
      .operands({K::IntScalar})
      .check(check_ub_to_l1)
      .reads(1, count(2).whole_blocks())
      .cost(CostKind::UbCopy)
      .ascendc("AscendC::DataCopy", "{api}({0}, {1}, {2:uint32_t});");
  // operands dst, src, block_count, block_len, src_gap, dst_gap (lengths and gaps in 32-byte blocks)
  t.def(OpCode::CopyUbToL1Blocks, "data_copy.ub_to_l1.blocks")
      .pipe(Pipe::MTE3)
      .operands({K::LocalTensor, K::LocalTensor})
      .operands(4, K::IntScalar)
      .check(check_ub_to_l1)
      .reads(1, Span::blocks(2, 3, 4))
      .cost(CostKind::UbCopy)
      .ascendc("AscendC::DataCopy", "{api}({0}, {1}, AscendC::DataCopyParams({2..6:uint16_t}));");
  t.def(OpCode::CopyL1ToBt, "data_copy.l1_to_bt")
      .pipe(Pipe::MTE1)
      .operands({K::LocalTensor, K::LocalTensor})
      .operands({K::IntScalar})
      .check(check_l1_to_bt)
      .reads(1, count(2))
      .writes(0, count(2))
      .cost(CostKind::UbCopy)
      .ascendc("DataCopy", "{api}({0..2}, {2:uint32_t});");
}

}  // namespace asc::rows
