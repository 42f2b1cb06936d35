// Rows of the data-movement family beyond plain copies: data_copy with SliceInfo lists, data_copy_pad's ND2NZ form
// (Unified Buffer -> L1), the pad-value register (set_pad_value), image loading through the AIPP registers
// (set_aipp_functions, load_image_to_local) and TransDataTo5HD (NCHW -> NC1HWC0 transposes of 16 blocks).
#include <string>

#include "ir/op_rows.h"
#include "ir/row_rules.h"

namespace asc::rows {
namespace {

constexpr uint32_t kSliceDtypes = dtype_bits({DType::Int8, DType::UInt8, DType::Int16, DType::UInt16, DType::Int32,
                                              DType::UInt32, DType::Float16, DType::BFloat16, DType::Float32});
constexpr uint32_t k5hdDtypes = dtype_bits({DType::Int8, DType::UInt8, DType::Int16, DType::UInt16, DType::Float16,
                                            DType::Int32, DType::UInt32, DType::Float32});
constexpr int64_t kMaxSliceDims = 8;  // K_MAX_DIM
constexpr int64_t kSliceFields = 5;   // startIndex, endIndex, stride, burstLen, shapeValue

bool const_int(const OpView& v, size_t i, int64_t* out) { return v.operand_const_int(i, out); }

// A compile-time operand outside [lo, hi] is an error naming the field.
void require_range(const OpView& v, size_t i, int64_t lo, int64_t hi, const char* field) {
  int64_t x = 0;
  if (const_int(v, i, &x) && (x < lo || x > hi))
    type_error(v, fmt::format("{} must be in [{}, {}], got {}", field, lo, hi, x));
}

// ---- data_copy with SliceInfo --------------------------------------------------------------------
// DataCopy(dst, src, dstSliceInfo[], srcSliceInfo[], dimValue)
// (https://www.hiascend.com/document/detail/zh/CANNCommunityEdition/850/API/ascendcopapi/atlasascendc_api_07_0105.html):
// per dimension d (0 innermost) the elements startIndex..endIndex (inclusive) are taken in slices of burstLen
// 32-byte blocks (d = 0; 1 element of the dimension for d > 0, where burstLen must be 1) with `stride` elements
// skipped between slices; shapeValue is the dimension's length. The source's slices, outer dimensions slowest,
// land on the destination's in the same order. GM -> VECIN and VECOUT -> GM, dimValue <= 8, burstLen equal on
// both sides. Operands: dst, src, then dimValue x 5 destination fields, dimValue x 5 source fields.
void check_slice(const OpView& v, bool gm_to_local) {
  require_same_dtype(v, 0, 1);
  require_ub_position(v, gm_to_local ? 0 : 1, gm_to_local ? "the destination" : "the source");
  require_row_dtype(v, 0);
  int64_t dims = v.op.attr_int(0);
  if (dims < 1 || dims > kMaxSliceDims)
    type_error(v, fmt::format("dim_value must be 1 to {}, got {}", kMaxSliceDims, dims));
  if (static_cast<int64_t>(v.op.operands.size()) != 2 + 2 * kSliceFields * dims)
    type_error(v, fmt::format("takes {} SliceInfo fields for dim_value {}, got {}", 2 * kSliceFields * dims, dims,
                              v.op.operands.size() - 2));
  for (int64_t side = 0; side < 2; ++side)
    for (int64_t d = 0; d < dims; ++d) {
      size_t base = 2 + static_cast<size_t>((side * dims + d) * kSliceFields);
      int64_t burst = 0;
      if (d > 0 && const_int(v, base + 3, &burst) && burst != 1)
        type_error(v, fmt::format("SliceInfo.burst_len of dimension {} must be 1 (only dimension 0 has bursts of "
                                  "blocks), got {}",
                                  d, burst));
      int64_t start = 0, end = 0;
      if (const_int(v, base, &start) && const_int(v, base + 1, &end) && end < start)
        type_error(v, fmt::format("SliceInfo.end_index {} is before start_index {}", end, start));
    }
  for (int64_t d = 0; d < dims; ++d) {
    int64_t a = 0, b = 0;
    size_t dst = 2 + static_cast<size_t>(d * kSliceFields) + 3, src = dst + static_cast<size_t>(dims * kSliceFields);
    if (const_int(v, dst, &a) && const_int(v, src, &b) && a != b)
      type_error(v, fmt::format("SliceInfo.burst_len differs between dst ({}) and src ({}) in dimension {}", a, b, d));
  }
}
void check_slice_in(const OpView& v) { check_slice(v, true); }
void check_slice_out(const OpView& v) { check_slice(v, false); }

// ---- data_copy_pad, Unified Buffer -> L1 with ND2NZ ------------------------------------------------------
// DataCopyPad(dst, src, DataCopyExtParams, Nd2NzParams), VECIN/VECOUT -> TSCM
// (https://www.hiascend.com/document/detail/en/canncommercial/850/API/ascendcopapi/atlasascendc_api_07_0265.html):
// "the actual channel is VECIN/VECOUT->GM->TSCM": block_count rows of block_len bytes leave the Unified Buffer
// (each row starts on a 32-byte block, src_stride blocks between rows) and are laid out block_len + dst_stride bytes
// apart, then ND2NZ moves them into L1 as data_copy.nd2nz does. Operands: dst, src, block_count, block_len,
// src_stride, dst_stride, then Nd2NzParams' 8 fields.
void check_pad_nd2nz(const OpView& v) {
  require_ub_position(v, 1, "src");
  Memory m = position_memory(v.operand_type(0).position);
  // TSCM is L1; a Unified Buffer destination is accepted (the board copies to the tensor's address, whatever
  // its label: the position policy is the lead's, in one place)
  if (m != Memory::L1 && m != Memory::UB)
    type_error(v, fmt::format("dst must be a LocalTensor in L1 (TSCM: A1, B1 or C1), not at TPosition.{}",
                              position_name(v.operand_type(0).position)));
  require_same_dtype(v, 0, 1);
  require_row_dtype(v, 0);
  require_range(v, 6, 0, 4095, "Nd2NzParams.nd_num");
  require_range(v, 7, 0, 16384, "Nd2NzParams.n_value");
  require_range(v, 8, 0, 65535, "Nd2NzParams.d_value");
}

int64_t pad_nd2nz_extent(const Op&, const int64_t* in, size_t index, int64_t size) {
  if (index == 0) {  // the Unified Buffer rows read
    int64_t rows = in[2], len = in[3];
    if (rows <= 0 || len <= 0) return 0;
    int64_t row = ceil_div(len, 32);
    return ((rows - 1) * (row + in[4]) + row) * 32;
  }
  int64_t nd = in[6], n = in[7], d = in[8];
  if (nd <= 0 || n <= 0 || d <= 0) return 0;
  int64_t c0 = 32 / size;
  return ((nd - 1) * in[13] + (ceil_div(d, c0) - 1) * in[11] * c0 + (n - 1) * in[12] * c0 + c0) * size;
}

// ---- the pad-value register ------------------------------------------------------------------------------
// SetPadValue<T, pos>(paddingValue), as pyasc documents it (python/asc/language/basic/utils.py,
// set_pad_value_docstring; DataCopyPad:
// https://www.hiascend.com/document/detail/en/canncommercial/850/API/ascendcopapi/atlasascendc_api_07_0265.html):
// the value data_copy_pad (GM -> VECIN / VECOUT) fills its pads with; pos is VECIN, VECOUT or MAX (either). The
// Model keeps one register: data_copy_pad without is_pad pads with it once it is set.
constexpr int64_t kPositionMax = 12;  // TPosition.MAX
void check_set_pad_value(const OpView& v) {
  if (v.operand_type(0).dtype == DType::Bool) type_error(v, "padding_value must be a number, not a bool");
  int64_t pos = v.op.attr_int(0);
  if (pos != static_cast<int64_t>(Position::VecIn) && pos != static_cast<int64_t>(Position::VecOut) &&
      pos != kPositionMax)
    type_error(v, fmt::format("pos must be TPosition.VECIN, VECOUT or MAX, got {}", pos));
}

// ---- AIPP ------------------------------------------------------------------------------------------------
// SetAippFunctions(src0[, src1], format, AippParams<U>)
// (https://www.hiascend.com/document/detail/en/canncommercial/850/API/ascendcopapi/atlasascendc_api_07_0240.html):
// loads the AIPP registers load_image_to_local reads: the image (src0; src1 the UV plane of YUV420SP), its format
// (YUV420SP_U8 0, XRGB8888_U8 1, RGB888_U8 4, YUV400_U8 9) and the 37 fields of AippParams in this order:
// padding (mode, value ch0..ch3), swap (rb, uv, ax), single line, data type conversion (mean ch0..2, min ch0..2,
// var ch0..2, round mode), channel padding (mode, value), colour-space conversion (enable, matrix r0c0..r2c2,
// bias in 0..2, bias out 0..2). U (attribute dtype) is int8 or float16.
constexpr size_t kAippFields = 37;

void check_aipp(const OpView& v, size_t first) {
  int64_t format = v.op.attr_int(0);
  if (format != 0 && format != 1 && format != 4 && format != 9)
    type_error(
        v, fmt::format("unknown AippInputFormat {} (YUV420SP_U8 0, XRGB8888_U8 1, RGB888_U8 4, YUV400_U8 9)", format));
  bool dual = first == 2;
  if (dual != (format == 0))
    type_error(v, dual ? "takes src1 (the UV plane) only for AippInputFormat.YUV420SP_U8"
                       : "AippInputFormat.YUV420SP_U8 needs src1, the UV plane: set_aipp_functions(src0, src1, ...)");
  auto d = static_cast<DType>(v.op.attr_int(1));
  if (d != DType::Int8 && d != DType::Float16)
    type_error(v, fmt::format("AippParams' dtype must be int8 or float16, got {}", dtype_name(d)));
  for (size_t i : {first + 1, first + 2, first + 3, first + 4, first + 20})
    if (v.operand_type(i).dtype != d)
      type_error(v, fmt::format("the padding values are AippParams' dtype {}, got {}", dtype_name(d),
                                v.operand_type(i).str()));
  require_range(v, first, 0, 3, "AippPaddingParams.padding_mode");
  require_range(v, first + 18, 0, 1, "AippDataTypeConvParams.dtc_round_mode");
  require_range(v, first + 19, 0, 1, "AippChannelPaddingParams.c_padding_mode");
  for (size_t i = first + 9; i < first + 12; ++i) require_range(v, i, 0, 255, "AippDataTypeConvParams.dtc_mean");
  for (size_t i = first + 31; i < first + 37; ++i) require_range(v, i, 0, 255, "AippColorSpaceConvParams bias");
  for (size_t i = first + 22; i < first + 31; ++i)
    require_range(v, i, -32768, 32767, "AippColorSpaceConvParams matrix");
}
void check_aipp_single(const OpView& v) { check_aipp(v, 1); }
void check_aipp_dual(const OpView& v) { check_aipp(v, 2); }

// The AippParams<U> aggregate, from the field operands starting at `f`.
std::string aipp_params(size_t f) {
  auto o = [&](size_t i, const char* cast) {
    return cast[0] ? fmt::format("{{{}:{}}}", f + i, cast) : fmt::format("{{{}}}", f + i);
  };
  std::string s = "AscendC::AippParams<{T:dtype}>{{";
  s += "{{" + o(0, "uint32_t") + ", " + o(1, "") + ", " + o(2, "") + ", " + o(3, "") + ", " + o(4, "") + "}}, ";
  s += "{{" + o(5, "bool") + ", " + o(6, "bool") + ", " + o(7, "bool") + "}}, ";
  s += "{{" + o(8, "bool") + "}}, ";
  s += "{{" + o(9, "uint8_t") + ", " + o(10, "uint8_t") + ", " + o(11, "uint8_t");
  for (size_t i = 12; i < 18; ++i) s += ", " + o(i, "half");
  s += ", " + o(18, "uint32_t") + "}}, ";
  s += "{{" + o(19, "uint32_t") + ", " + o(20, "") + "}}, ";
  s += "{{" + o(21, "bool");
  for (size_t i = 22; i < 31; ++i) s += ", " + o(i, "int16_t");
  for (size_t i = 31; i < 37; ++i) s += ", " + o(i, "uint8_t");
  return s + "}}}}";
}

// LoadImageToLocal(dst, LoadImageToLocalParams), as pyasc documents it (python/asc/language/basic/utils.py,
// load_image_to_local_docstring) with the AIPP stages of SetAippFunctions (above): horiz_size x vert_size pixels from
// (horiz_start_pos, vert_start_pos) of an image src_horiz_size pixels wide, through the AIPP registers, into A1/B1 as
// rows of pixels of C0 channels (channel padding mode 0: 32 bytes; mode 1: 4 channels), with top/bottom/left/right
// padding. Operands: dst, horiz_size, vert_size, horiz_start_pos, vert_start_pos, src_horiz_size, top, bot, left, right
// pad sizes.
void check_load_image(const OpView& v) {
  require_position(v, 0, Memory::L1, "dst", "A1 or B1");
  DType d = v.operand_type(0).dtype;
  if (d != DType::Int8 && d != DType::UInt8 && d != DType::Float16)
    type_error(v, fmt::format("dst must hold int8, uint8 or float16 pixels, got {}", dtype_name(d)));
  require_range(v, 1, 2, 4095, "horiz_size");
  require_range(v, 2, 2, 4095, "vert_size");
  require_range(v, 3, 0, 4095, "horiz_start_pos");
  require_range(v, 4, 0, 4095, "vert_start_pos");
  require_range(v, 5, 2, 4095, "src_horiz_size");
  for (size_t i = 6; i < 10; ++i) require_range(v, i, 0, 32, "the pad sizes");
}

// ---- TransDataTo5HD --------------------------------------------------------------------------------------
// TransDataTo5HD<T>(dst, src, TransDataTo5HDParams)
// (https://www.hiascend.com/doc_center/source/zh/CANNCommunityEdition/82RC1alpha001/API/ascendcopapi/atlasascendc_api_07_0200.html):
// each repeat reads 16 32-byte blocks of the Unified Buffer (src addresses) and writes 16 (dst addresses), the
// transpose of the 16 x 16 matrix they form: for 2-byte T, dst block i element j is src block j element i; for
// 1-byte T the 16 bytes of each block's low or high half (src_high_half, dst_high_half) take part; for 4-byte T,
// dst blocks 2p and 2p + 1 hold element p of src blocks 0..7 and 8..15. Repeat r moves every address by
// r x rep_stride blocks. Forms: two LocalTensor<uint64_t> of 16 addresses (trans_data_to_5hd), or the 32
// addresses as scalars (trans_data_to_5hd.list: Ascend C's uint64_t arrays; pyasc's LocalTensor lists become
// their get_phy_addr values). T is attribute dtype. The params: dst_high_half, src_high_half, repeat_times,
// dst_rep_stride, src_rep_stride.
void check_5hd_params(const OpView& v, size_t first) {
  auto d = static_cast<DType>(v.op.attr_int(0));
  if (!(k5hdDtypes & (1u << static_cast<unsigned>(d))))
    type_error(v, fmt::format("moves int8, uint8, int16, uint16, float16, int32, uint32 or float32 data, not {}",
                              dtype_valid(static_cast<uint32_t>(d)) ? dtype_name(d) : "an unknown dtype"));
  require_range(v, first + 2, 0, 255, "repeat_times");
  int64_t half = 0;
  if (dtype_size(d) != 1 && ((const_int(v, first, &half) && half) || (const_int(v, first + 1, &half) && half)))
    type_error(v, fmt::format("dst_high_half / src_high_half apply to int8 and uint8 only, not {}", dtype_name(d)));
}

void check_5hd_tensors(const OpView& v) {
  for (size_t i : {0, 1}) {
    require_ub_position(v, i, i == 0 ? "dst (the destination addresses)" : "src (the source addresses)");
    if (v.operand_type(i).dtype != DType::UInt64)
      type_error(v, fmt::format("{} must be a LocalTensor of uint64 addresses, got {}", i == 0 ? "dst" : "src",
                                v.operand_type(i).str()));
  }
  check_5hd_params(v, 2);
}

void check_5hd_list(const OpView& v) {
  for (size_t i = 0; i < 32; ++i)
    if (v.operand_type(i).dtype != DType::UInt64)
      type_error(v,
                 fmt::format("the address lists hold uint64 addresses; address {} is {}", i, v.operand_type(i).str()));
  check_5hd_params(v, 32);
}

}  // namespace

void define_data_movement_ops(OpTable& t) {
  t.def(OpCode::CopySliceGmToLocal, "data_copy.slice.gm_to_local")
      .pipe(Pipe::MTE2)
      .operands({K::LocalTensor, K::GlobalTensor})
      .operands(2 * kSliceFields * kMaxSliceDims, K::IntScalar)
      .optional_from(2 + 2 * kSliceFields)
      .attr("dims")
      .check(check_slice_in)
      .reads(1, Span::data_dependent().unaligned())
      .writes(0, Span::data_dependent().aligned())
      .cost(CostKind::GmCopy)
      .dtypes(kSliceDtypes)
      .ascendc("AscendC::DataCopy");
  t.def(OpCode::CopySliceLocalToGm, "data_copy.slice.local_to_gm")
      .pipe(Pipe::MTE3)
      .operands({K::GlobalTensor, K::LocalTensor})
      .operands(2 * kSliceFields * kMaxSliceDims, K::IntScalar)
      .optional_from(2 + 2 * kSliceFields)
      .attr("dims")
      .check(check_slice_out)
      .reads(1, Span::data_dependent().aligned())
      .writes(0, Span::data_dependent().unaligned())
      .cost(CostKind::GmCopy)
      .dtypes(kSliceDtypes)
      .ascendc("AscendC::DataCopy");
  t.def(OpCode::CopyPadNd2Nz, "data_copy_pad.nd2nz")
      .pipe(Pipe::MTE3)  // the Unified Buffer side; the L1 side follows through GM on MTE2
      .operands({K::LocalTensor, K::LocalTensor})
      .operands(12, K::IntScalar)
      .check(check_pad_nd2nz)
      .reads(1, extent())
      .writes(0, extent())
      .extent(pad_nd2nz_extent)
      .cost(CostKind::GmCopy)
      .dtypes(kSliceDtypes)
      .ascendc("AscendC::DataCopyPad",
               "{api}({0}, {1}, AscendC::DataCopyExtParams({2:uint16_t}, {3:uint32_t}, {4:uint32_t}, {5:uint32_t}, "
               "0), AscendC::Nd2NzParams({6..14:uint16_t}));");
  t.def(OpCode::SetPadValue, "set_pad_value")
      .operands({K::AnyScalar})
      .attr_default("pos", kPositionMax)
      .check(check_set_pad_value)
      .ascendc("AscendC::SetPadValue", "{api}<{T:0}, {enum:pos}>({0});");
  t.def(OpCode::SetAippFunctions, "set_aipp_functions")
      .operands({K::GlobalTensor})
      .operands(kAippFields, K::AnyScalar)
      .attr("format")
      .attr("dtype")
      .check(check_aipp_single)
      .ascendc("AscendC::SetAippFunctions",
               "{api}({0}, static_cast<AscendC::AippInputFormat>({attr:format}), " + aipp_params(1) + ");");
  t.def(OpCode::SetAippFunctionsDual, "set_aipp_functions.dual")
      .operands({K::GlobalTensor, K::GlobalTensor})
      .operands(kAippFields, K::AnyScalar)
      .attr("format")
      .attr("dtype")
      .check(check_aipp_dual)
      .ascendc("AscendC::SetAippFunctions",
               "{api}({0}, {1}, static_cast<AscendC::AippInputFormat>({attr:format}), " + aipp_params(2) + ");");
  t.def(OpCode::LoadImageToLocal, "load_image_to_local")
      .pipe(Pipe::MTE2)
      .operands({K::LocalTensor})
      .operands(9, K::IntScalar)
      .check(check_load_image)
      .writes(0, Span::data_dependent().aligned())
      .cost(CostKind::GmCopy)
      .ascendc("AscendC::LoadImageToLocal",
               "{api}({0}, AscendC::LoadImageToLocalParams{{{1..6:uint16_t}, {6..8:uint8_t}, {8..10:uint16_t}}});");
  t.def(OpCode::TransDataTo5HD, "trans_data_to_5hd")
      .pipe(Pipe::V)
      .operands({K::LocalTensor, K::LocalTensor})
      .operands(5, K::IntScalar)
      .attr("dtype")
      .check(check_5hd_tensors)
      .reads(0, Span::data_dependent().aligned())
      .reads(1, Span::data_dependent().aligned())
      .cost(CostKind::UbCopy)
      .ascendc("AscendC::TransDataTo5HD",
               "{api}<{T:dtype}>({0}, {1}, AscendC::TransDataTo5HDParams({2:bool}, {3:bool}, {4:uint8_t}, "
               "{5:uint16_t}, {6:uint16_t}));");
  t.def(OpCode::TransDataTo5HDList, "trans_data_to_5hd.list")
      .pipe(Pipe::V)
      .operands(32, K::IntScalar)
      .operands(5, K::IntScalar)
      .attr("dtype")
      .check(check_5hd_list)
      .cost(CostKind::UbCopy)
      .ascendc("AscendC::TransDataTo5HD");
}

}  // namespace asc::rows
