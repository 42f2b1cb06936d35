// Rows of the cube unit's extras: InitConstValue, the 4:2 structured-sparse
// pair (LoadDataWithSparse, MmadWithSparse), the img2col load (LoadData with
// LoadData3DParamsV2) and the per-core modes those instructions read
// (SetLoadDataBoundary / PaddingValue / Repeat, SetHF32Mode / TransMode,
// SetMMLayoutTransform). The semantics are the Ascend C documentation's, cited
// at each row; sim/cube_extras.cpp runs them.
#include "ir/op_rows.h"
#include "ir/row_rules.h"

namespace asc::rows {
namespace {

// ---- InitConstValue ------------------------------------------------------------------------------------
// InitConstValue / Fill (https://www.hiascend.com/document/detail/zh/canncommercial/800/apiref/ascendcopapi/
// atlasascendc_api_07_0239.html; asc-devkit docs "Fill"): dst at A1/B1 (L1, 32-byte blocks, pipe MTE2) or
// A2/B2 (L0A/L0B, 512-byte blocks, pipe MTE1); repeat_times iterations of block_num blocks, dst_gap blocks
// between one iteration's end and the next one's start; Atlas A2 takes int16, uint16, half, bfloat16, int32,
// uint32 and float. Operands: dst, repeat_times, block_num, dst_gap, value; attribute l1 (1: dst is in L1).
constexpr uint32_t kInitDtypes = dtype_bits(
    {DType::Int16, DType::UInt16, DType::Float16, DType::BFloat16, DType::Int32, DType::UInt32, DType::Float32});

void check_init_const_value(const OpView& v) {
  Position p = v.operand_type(0).position;
  bool l1 = p == Position::A1 || p == Position::B1;
  if (!l1 && p != Position::A2 && p != Position::B2)
    type_error(v, fmt::format("dst must be a LocalTensor at TPosition.A1, B1 (L1), A2 (L0A) or B2 (L0B), not {}",
                              position_name(p)));
  if ((v.op.attr_int(0) != 0) != l1) type_error(v, "attribute l1 disagrees with dst's position");
  require_row_dtype(v, 0);
  if (v.operand_type(4).dtype != v.operand_type(0).dtype)
    type_error(
        v, fmt::format("init_value is {} but dst is {}", v.operand_type(4).str(), dtype_name(v.operand_type(0).dtype)));
}

Pipe init_const_value_pipe(const Op& op) { return op.attr_int(0) ? Pipe::MTE2 : Pipe::MTE1; }

int64_t init_const_value_extent(const Op& op, const int64_t* in, size_t, int64_t) {
  int64_t repeats = in[1], blocks = in[2], gap = in[3];
  if (repeats > 32767 || blocks > 32767 || gap > 32767)
    fail(ASC_ERR_INVALID_ARGUMENT, op.loc,
         "InitConstValueParams: repeat_times {}, block_num {} and dst_gap {} must be 0..32767", repeats, blocks, gap);
  if (repeats == 0 || blocks == 0) return 0;
  int64_t block = op.attr_int(0) ? 32 : 512;
  return ((repeats - 1) * (blocks + gap) + blocks) * block;
}

// ---- the 4:2 sparse pair ---------------------------------------------------------------------------------
// LoadDataWithSparse (https://www.hiascend.com/document/detail/en/canncommercial/850/API/ascendcopapi/
// atlasascendc_api_07_0244.html): int8 dst (B2) <- int8 src (B1), uint8 idx (L1); repeat_times 512-byte dense
// fractals from fractal start_index, each with its 128-byte index fractal; only start_index and repeat_times
// are used (no strides, no transpose). Operands: dst, src, idx, then LoadData2DParams' seven fields.
void check_load_sparse(const OpView& v) {
  if (v.operand_type(0).position != Position::B2)
    type_error(v, fmt::format("dst must be a LocalTensor at TPosition.B2 (L0B), not {}",
                              position_name(v.operand_type(0).position)));
  require_position(v, 1, Memory::L1, "src", "B1");
  require_position(v, 2, Memory::L1, "idx", "B1");
  if (v.operand_type(0).dtype != DType::Int8 || v.operand_type(1).dtype != DType::Int8)
    type_error(v, fmt::format("dst and src must be int8, got {} and {}", dtype_name(v.operand_type(0).dtype),
                              dtype_name(v.operand_type(1).dtype)));
  if (v.operand_type(2).dtype != DType::UInt8)
    type_error(
        v, fmt::format("idx must be uint8 (four 2-bit indices a byte), got {}", dtype_name(v.operand_type(2).dtype)));
}

int64_t load_sparse_extent(const Op& op, const int64_t* in, size_t index, int64_t) {
  int64_t start = in[3], repeats = in[4];
  if (index == 0 && (repeats > 255 || start > 65535))
    fail(ASC_ERR_INVALID_ARGUMENT, op.loc, "LoadData2DParams: repeat_times {} must be 0..255, start_index {} 0..65535",
         repeats, start);
  if (repeats == 0) return 0;
  switch (index) {
    case 0: return (start + repeats) * 512;  // src
    case 1: return (start + repeats) * 128;  // idx
    default: return repeats * 512;           // dst
  }
}

// MmadWithSparse (https://www.hiascend.com/document/detail/en/canncommercial/850/API/ascendcopapi/
// atlasascendc_api_07_0250.html): int32 dst (CO1) = or += int8 fm (A2, m x k, Zz) x int8 filter (B2, the dense
// k/2 x n, Zn), fm densified by the index buffer LoadDataWithSparse filled. Operands as mmad's.
void check_mmad_sparse(const OpView& v) {
  require_position(v, 0, Memory::L0C, "dst", "CO1");
  if (v.operand_type(1).position != Position::A2) type_error(v, "fm (the left matrix) must be at TPosition.A2 (L0A)");
  if (v.operand_type(2).position != Position::B2)
    type_error(v, "filter (the right matrix) must be at TPosition.B2 (L0B)");
  if (v.operand_type(0).dtype != DType::Int32 || v.operand_type(1).dtype != DType::Int8 ||
      v.operand_type(2).dtype != DType::Int8)
    type_error(
        v, fmt::format("multiplies int8 x int8 into int32, not {} x {} into {}", dtype_name(v.operand_type(1).dtype),
                       dtype_name(v.operand_type(2).dtype), dtype_name(v.operand_type(0).dtype)));
}

// operands: dst, fm, filter, m, n, k, init, source. Effects: fm, filter, dst read (accumulating), dst.
int64_t mmad_sparse_extent(const Op& op, const int64_t* in, size_t index, int64_t) {
  int64_t m = in[3], n = in[4], k = in[5];
  if (index == 0 && (m > 4095 || n > 4095 || k > 4095))
    fail(ASC_ERR_INVALID_ARGUMENT, op.loc, "MmadParams: m {}, n {} and k {} must be 0..4095", m, n, k);
  if (m == 0 || n == 0 || k == 0) return 0;
  switch (index) {
    case 0: return ceil_div(m, 16) * ceil_div(k, 32) * 512;
    case 1: return ceil_div(2 * ceil_div(k, 4), 32) * ceil_div(n, 16) * 512;  // two of every four k
    case 2: return in[6] ? 0 : ceil_div(m, 16) * ceil_div(n, 16) * 1024;
    default: return ceil_div(m, 16) * ceil_div(n, 16) * 1024;
  }
}

int64_t mmad_sparse_work(const Op&, const int64_t* in, int64_t) {
  return ceil_div(in[3], 16) * ceil_div(in[4], 16) * ceil_div(2 * ceil_div(in[5], 4), 32);
}

// ---- the img2col load --------------------------------------------------------------------------------------
// LoadData with LoadData3DParamsV2 / V2Pro (asc-devkit docs "LoadData（卷积数据搬运）", its pseudo code
// examples/.../load_data_l12l0/scripts/load3d.py): an NC1HWC0 feature map in L1 (A1/B1) expanded image to column,
// the (m_start_pt.., k_start_pt..) block of m_extension x k_extension moved to L0A (Zz; transposed with
// en_transpose for 2- and 4-byte types) or L0B (always transposed; not 1-byte types). Atlas A2: A1/A2 take int8,
// uint8, half, bfloat16, int32, uint32, float; B1/B2 half, bfloat16, int32, uint32, float. The IR holds the V2Pro
// form (V2 is SetFmatrix, SetLoadDataPaddingValue and V2Pro, as Ascend C's isSetFMatrix / isSetPadding say):
// dst, src, channel_size, en_transpose, en_small_k, filter_size_w, filter_size_h, f_matrix_ctrl, ext_config
// (m_start_pt << 48 | k_start_pt << 32 | m_extension << 16 | k_extension), filter_config (dilation_h << 40 |
// dilation_w << 32 | filter_h << 24 | filter_w << 16 | stride_h << 8 | stride_w).
constexpr uint32_t kLoad3dA = dtype_bits(
    {DType::Int8, DType::UInt8, DType::Float16, DType::BFloat16, DType::Int32, DType::UInt32, DType::Float32});

void check_load3d(const OpView& v) {
  Position p = v.operand_type(0).position;
  if (p != Position::A2 && p != Position::B2)
    type_error(v, fmt::format("dst must be a LocalTensor at TPosition.A2 (L0A) or B2 (L0B), not {}", position_name(p)));
  require_position(v, 1, Memory::L1, "src", "A1 or B1");
  require_same_dtype(v, 0, 1);
  require_row_dtype(v, 0);
  DType d = v.operand_type(0).dtype;
  if (p == Position::B2 && dtype_size(d) == 1)
    type_error(v, fmt::format("L1 -> L0B does not move 1-byte types ({}) on Atlas A2", dtype_name(d)));
}

}  // namespace

void define_cube_extra_ops(OpTable& t) {
  t.def(OpCode::InitConstValue, "init_const_value")
      .pipe(init_const_value_pipe)
      .operands({K::LocalTensor, K::IntScalar, K::IntScalar, K::IntScalar, K::AnyScalar})
      .attr("l1")
      .check(check_init_const_value)
      .writes(0, extent())
      .extent(init_const_value_extent)
      .cost(CostKind::UbCopy)
      .dtypes(kInitDtypes)
      .doc("fills repeat_times iterations of block_num blocks (32 bytes in L1, 512 in L0A/L0B), dst_gap blocks apart")
      .ascendc("AscendC::InitConstValue", "{api}({0}, AscendC::InitConstValueParams<{T:0}>({1..4:uint16_t}, {4}));");
  t.def(OpCode::LoadDataWithSparse, "load_data_with_sparse")
      .pipe(Pipe::MTE1)
      .operands(3, K::LocalTensor)
      .operands(7, K::IntScalar)
      .check(check_load_sparse)
      .reads(1, extent())
      .reads(2, extent())
      .writes(0, extent())
      .extent(load_sparse_extent)
      .cost(CostKind::UbCopy)
      .doc("dense int8 B fractals to L0B and their 2-bit index fractals to the cube's index buffer")
      .ascendc("AscendC::LoadDataWithSparse", "{api}({0..3}, AscendC::LoadData2DParams({3..10:uint16_t}));");
  t.def(OpCode::MmadWithSparse, "mmad_with_sparse")
      .pipe(Pipe::M)
      .operands(3, K::LocalTensor)
      .operands(5, K::IntScalar)
      .check(check_mmad_sparse)
      .reads(1, extent())
      .reads(2, extent())
      .reads(0, extent())
      .writes(0, extent())
      .extent(mmad_sparse_extent, 1)
      .work(mmad_sparse_work)
      .cost(CostKind::Cube)
      .doc("int32 C (=|+=) int8 A (m x k, 4:2 densified by the index buffer) x int8 dense B (k/2 x n)")
      .ascendc("AscendC::MmadWithSparse",
               "{api}({0..3}, AscendC::MmadParams({3..6:uint16_t}, 0, {7} != 0, {6} != 0));");
  t.def(OpCode::LoadData3DV2Pro, "load_data.3dv2pro")
      .pipe(Pipe::MTE1)
      .operands(2, K::LocalTensor)
      .operands(8, K::IntScalar)
      .check(check_load3d)
      .reads(1, Span::data_dependent().aligned())
      .writes(0, Span::data_dependent())
      .cost(CostKind::UbCopy)
      .dtypes(kLoad3dA)
      .doc("img2col of an NC1HWC0 feature map in L1: an m_extension x k_extension block into L0A (Zz) or L0B")
      .ascendc("AscendC::LoadData",
               "{api}({0}, {1}, AscendC::LoadData3DParamsV2Pro({2:uint16_t}, {3} != 0, {4} != 0, {5} != 0, {6} != 0, "
               "{7} != 0, {8:uint64_t}, {9:uint64_t}));");
  // SetFmatrix(l1H, l1W, padList, FMATRIX_LEFT): operands l1_h, l1_w, pad_left, pad_right, pad_top, pad_bottom
  t.def(OpCode::SetFmatrix, "set_fmatrix")
      .pipe(Pipe::MTE1)
      .operands(6, K::IntScalar)
      .doc("the feature map load_data (3-D) expands: its height and width in L1 and the padding around it")
      .ascendc("AscendC::SetFmatrix",
               "{{\nconst uint8_t padList[4] = {{{2..6:uint8_t}}};\n"
               "{api}({0:uint16_t}, {1:uint16_t}, padList, AscendC::FmatrixMode::FMATRIX_LEFT);\n}}");
  // The mode setters: each on the pipe of the instructions that read the state, so that (as the board's
  // registers, read when an instruction issues) a setting reaches the instructions after it and none before.
  t.def(OpCode::SetLoadDataBoundary, "set_load_data_boundary")
      .pipe(Pipe::MTE1)
      .operands({K::IntScalar})
      .doc("the L1 boundary (bytes; 0: none) past which load_data (3-D) reads wrap to the start of L1")
      .ascendc("AscendC::SetLoadDataBoundary", "{api}({0:uint32_t});");
  t.def(OpCode::SetLoadDataPaddingValue, "set_load_data_padding_value")
      .pipe(Pipe::MTE1)
      .operands({K::AnyScalar})
      .doc("the padding value of load_data (3-D) with is_set_padding=False")
      .ascendc("AscendC::SetLoadDataPaddingValue", "{api}({0});");
  // LoadDataRepeatParam(repeatStride, repeatTime, repeatMode): the IR holds pyasc's order (time, stride, mode)
  t.def(OpCode::SetLoadDataRepeat, "set_load_data_repeat")
      .pipe(Pipe::MTE1)
      .operands(3, K::IntScalar)
      .doc("load_data (3-D) repeats: repeat_time blocks, repeat_stride apart, along M (mode 0) or K (mode 1)")
      .ascendc("AscendC::SetLoadDataRepeat",
               "{api}(AscendC::LoadDataRepeatParam({1:uint16_t}, {0:uint8_t}, {2:uint8_t}));");
  t.def(OpCode::SetHf32Mode, "set_hf32_mode")
      .pipe(Pipe::M)
      .operands({K::IntScalar})
      .doc("on: mmad rounds float32 L0A/L0B values to HF32 (11 mantissa bits) before multiplying")
      .ascendc("AscendC::SetHF32Mode", "{api}({0} != 0);");
  t.def(OpCode::SetHf32TransMode, "set_hf32_trans_mode")
      .pipe(Pipe::M)
      .operands({K::IntScalar})
      .doc("HF32 rounding: to nearest, ties away from even towards zero (true) or ties to even (false)")
      .ascendc("AscendC::SetHF32TransMode", "{api}({0} != 0);");
  t.def(OpCode::SetMmLayoutTransform, "set_mm_layout_transform")
      .pipe(Pipe::M)
      .operands({K::IntScalar})
      .doc("mmad's order of producing results: N first, then M (true), or M first (false); the values are the same")
      .ascendc("AscendC::SetMMLayoutTransform", "{api}({0} != 0);");
}

}  // namespace asc::rows
