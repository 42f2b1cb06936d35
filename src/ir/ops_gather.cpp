// Rows of broadcast and gathers: brcb, gather (by byte offsets) and
// gather_mask (by a bit pattern).
#include "ir/op_rows.h"
#include "ir/row_rules.h"

namespace asc::rows {
namespace {

// The 16- and 32-bit element dtypes.
constexpr uint32_t kBitsDtypes = dtype_bits(
    {DType::Int16, DType::UInt16, DType::Float16, DType::BFloat16, DType::Int32, DType::UInt32, DType::Float32});

// Scatter(dst, src, dstOffset, dstBase, count | mask, repeatTime, srcRepStride): element i of src goes to byte
// dstBase + dstOffset[i] of dst (atlasascendc_api_07_0221 "Scatter"; Atlas A2/A3 do not support it, so it runs
// only on a platform row with Platform::scatter). The mask form's repeat r takes 256 bytes of src
// src_rep_stride blocks after the previous repeat's.
void check_scatter(const OpView& v) {
  check_ub_same_dtype(v);
  require_ub_position(v, 2, "dst_offset");
  if (v.operand_type(2).dtype != DType::UInt32)
    type_error(v, "dst_offset must be a LocalTensor of uint32 byte offsets");
  if (v.op.code == OpCode::ScatterMaskForm) check_mask_mode(v);
}

// scatter.mask operands: dst, src, dst_offset, dst_base, mask0, mask1, repeat_times, src_rep_stride. Effect 0
// reads the offsets, 1 src (256 bytes per repeat, src_rep_stride blocks apart), 2 writes dst (data dependent).
int64_t scatter_extent(const Op& op, const int64_t* in, size_t index, int64_t size) {
  int64_t repeats = in[6], rep = in[7];
  if (repeats > 255 || rep > 255)
    fail(ASC_ERR_INVALID_ARGUMENT, op.loc, "scatter: repeat_times {} must be 0..255 and src_rep_stride {} 0..255",
         repeats, rep);
  if (repeats == 0) return 0;
  return index == 0 ? repeats * (256 / size) * 4 : (repeats - 1) * rep * 32 + 256;
}

// brcb operands: dst, src, repeat_times, dst_blk_stride, dst_rep_stride. Effect 0 reads src, 1 writes dst.
int64_t brcb_extent(const Op& op, const int64_t* in, size_t index, int64_t size) {
  int64_t repeats = in[2], blk = in[3], rep = in[4];
  if (repeats > 255 || blk > 65535 || rep > 65535)
    fail(ASC_ERR_INVALID_ARGUMENT, op.loc, "brcb: repeat_times {} must be 0..255 and the strides {}, {} 0..65535",
         repeats, blk, rep);
  if (blk == 0 && repeats > 0)
    fail(ASC_ERR_INVALID_ARGUMENT, op.loc, "brcb: a destination block stride of 0 is undefined on the hardware");
  if (repeats == 0) return 0;
  return index == 0 ? repeats * 8 * size : ((repeats - 1) * rep + 7 * blk) * 32 + 32;
}

void check_gather(const OpView& v) {
  check_ub_same_dtype(v);
  require_ub_position(v, 2, "src_offset");
  if (v.operand_type(2).dtype != DType::UInt32)
    type_error(v, "src_offset must be a LocalTensor of uint32 byte offsets");
  if (v.op.code == OpCode::GatherMaskForm) check_mask_mode(v);
}

// gather.mask operands: dst, src, src_offset, src_base, mask0, mask1,
// repeat_times, dst_rep_stride. Effect 0 reads the offsets, 2 writes dst
// (256 bytes per repeat, dst_rep_stride blocks apart).
int64_t gather_extent(const Op& op, const int64_t* in, size_t index, int64_t size) {
  int64_t repeats = in[6], rep = in[7];
  if (repeats > 255 || rep > 65535)
    fail(ASC_ERR_INVALID_ARGUMENT, op.loc, "gather: repeat_times {} must be 0..255 and dst_rep_stride {} 0..65535",
         repeats, rep);
  if (repeats == 0) return 0;
  return index == 0 ? repeats * (256 / size) * 4 : (repeats - 1) * rep * 32 + 256;
}

void check_gather_mask(const OpView& v) {
  check_ub_same_dtype(v);
  if (v.op.code == OpCode::GatherMask) {
    require_ub_position(v, 2, "src1_pattern");
    DType want = dtype_size(v.operand_type(0).dtype) == 2 ? DType::UInt16 : DType::UInt32;
    if (v.operand_type(2).dtype != want)
      type_error(v, fmt::format("src1_pattern must be a LocalTensor of {} for {} data", dtype_name(want),
                                dtype_name(v.operand_type(0).dtype)));
  } else {
    int64_t pattern;
    if (v.operand_const_int(2, &pattern) && (pattern < 1 || pattern > 7))
      type_error(v, fmt::format("built-in pattern {} is not one of 1..7", pattern));
  }
}

// gather_mask operands: dst, src0, src1_pattern, reduce_mode, mask,
// src0_block_stride, repeat_times, src0_repeat_stride, src1_repeat_stride.
// A repeat takes 256 bytes of src0 (normal) or `mask` elements (reduce_mode).
// Effects: 0 reads src0, then the pattern tensor (gather_mask only), last dst.
int64_t gather_mask_elements_per_repeat(const int64_t* in, int64_t size) { return in[3] ? in[4] : 256 / size; }

int64_t gather_mask_extent(const Op& op, const int64_t* in, size_t index, int64_t size) {
  int64_t per_repeat = gather_mask_elements_per_repeat(in, size), blk = in[5], repeats = in[6];
  if (index == 0 && (repeats > 65535 || in[7] > 65535 || in[8] > 255 || blk > 255))
    fail(ASC_ERR_INVALID_ARGUMENT, op.loc,
         "gather_mask: repeat_times {} and src0_repeat_stride {} must be 0..65535, src0_block_stride {} and "
         "src1_repeat_stride {} 0..255",
         repeats, in[7], blk, in[8]);
  if (repeats == 0 || per_repeat == 0) return 0;
  if (index == 0) return ((repeats - 1) * in[7] + ((per_repeat - 1) / (32 / size)) * blk) * 32 + 32;
  return (repeats - 1) * in[8] * 32 + (per_repeat + 7) / 8;  // the pattern's bits
}

// ---- gatherb, get_gather_mask_remain_count, bilinear_interpolation ------------------------------------------
// Gatherb(dst, src0, offset, repeatTime, GatherRepeatParams(dstBlkStride, dstRepStride)): repeat r copies the 8
// 32-byte blocks of src0 at byte offsets offset[8r .. 8r + 7] (each 32-byte aligned) to dst blocks
// r * dstRepStride + b * dstBlkStride; no mask; repeatTime 1..255 (the Model takes 0 as no copy), dstBlkStride
// 0..255, dstRepStride 0..4095
// (https://compiler-team-ru.github.io/pyasc/python-api/rst/language/generated/asc.language.basic.gatherb.html,
//  the vgatherb intrinsic's ranges:
//  https://www.hiascend.com/document/detail/zh/canncommercial/850/API/cceintrinsicapi/cceapi_0058.html).
// gatherb operands: dst, src0, offset, repeat_times, dst_blk_stride, dst_rep_stride. Effect 0 reads the offsets,
// 1 the src0 blocks (data dependent), 2 writes dst.
void check_gatherb(const OpView& v) {
  check_ub_same_dtype(v);
  require_ub_position(v, 2, "offset");
  if (v.operand_type(2).dtype != DType::UInt32) type_error(v, "offset must be a LocalTensor of uint32 byte offsets");
}

int64_t gatherb_extent(const Op& op, const int64_t* in, size_t index, int64_t) {
  int64_t repeats = in[3], blk = in[4], rep = in[5];
  if (index == 0 && (repeats < 0 || repeats > 255 || blk < 0 || blk > 255 || rep < 0 || rep > 4095))
    fail(ASC_ERR_INVALID_ARGUMENT, op.loc,
         "gatherb: repeat_times {} must be 0..255 (0 copies nothing), dst_blk_stride {} 0..255 and dst_rep_stride {} "
         "0..4095",
         repeats, blk, rep);
  if (repeats == 0) return 0;
  return index == 0 ? repeats * 8 * 4 : ((repeats - 1) * rep + 7 * blk) * 32 + 32;
}

// BilinearInterpolation(dst, src0, src0Offset, src1, mask, hRepeat, repeatMode, dstBlkStride, vROffset, vRepeat,
// sharedTmpBuffer), half: vertical iteration v (vRepeat of them) runs hRepeat horizontal ones; horizontal
// iteration k = v * hRepeat + h reads the 8 src0 blocks at byte offsets src0Offset[8k .. 8k + 7], multiplies
// each by src1[k] (repeatMode false) or block b by src1[8k + b] (true), and adds the products into the 8 dst
// blocks at v * vROffset elements + b * dstBlkStride blocks, the first horizontal iteration writing them; the
// mask selects elements of the 128. vROffset is 128..65534 elements and a multiple of 16
// (https://www.hiascend.com/document/detail/en/canncommercial/850/API/ascendcopapi/atlasascendc_api_07_0222.html,
//  https://gitcode.com/cann/asc-devkit/blob/9.0.0-beta.1/docs/api/context/BilinearInterpolation(ISASI).md).
// Operands: dst, src0, src0_offset, src1, mask0, mask1, h_repeat, repeat_mode, dst_blk_stride, v_r_offset,
// v_repeat, shared_tmp_buffer (unused by the Model). Effects: 0 reads src0_offset, 1 src1, 2 src0 (data
// dependent), 3 writes dst.
void check_bilinear(const OpView& v) {
  require_ub_position(v, 0, "dst");
  require_ub_position(v, 1, "src0");
  require_ub_position(v, 2, "src0_offset");
  require_ub_position(v, 3, "src1");
  require_ub_position(v, 11, "shared_tmp_buffer");
  for (size_t i : {0, 1, 3})
    if (v.operand_type(i).dtype != DType::Float16)
      type_error(v, fmt::format("{} must hold float16 (Atlas A2 interpolates half), got {}",
                                i == 0   ? "dst"
                                : i == 1 ? "src0"
                                         : "src1",
                                dtype_name(v.operand_type(i).dtype)));
  if (v.operand_type(2).dtype != DType::UInt32)
    type_error(v, "src0_offset must be a LocalTensor of uint32 byte offsets");
  if (v.operand_type(11).dtype != DType::UInt8) type_error(v, "shared_tmp_buffer must be a LocalTensor of uint8");
  if (v.op.attr_int(0) != 0 && v.op.attr_int(0) != 1)
    type_error(v, "mask_mode is 0 (continuous: the first mask elements) or 1 (bit mask)");
}

int64_t bilinear_extent(const Op& op, const int64_t* in, size_t index, int64_t) {
  int64_t h = in[6], mode = in[7], blk = in[8], voff = in[9], vrep = in[10];
  if (index == 0) {
    if (h < 0 || h > 255 || vrep < 0 || vrep > 255 || blk < 0 || blk > 65535)
      fail(ASC_ERR_INVALID_ARGUMENT, op.loc,
           "bilinear_interpolation: h_repeat {} and v_repeat {} must be 0..255, dst_blk_stride {} 0..65535", h, vrep,
           blk);
    if (voff < 128 || voff >= 65535)
      fail(ASC_ERR_INVALID_ARGUMENT, op.loc, "bilinear_interpolation: v_r_offset {} must be 128..65534 elements", voff);
    if (voff % 16 != 0)
      fail(ASC_ERR_MISALIGNED, op.loc,
           "bilinear_interpolation: v_r_offset {} elements is {} bytes, not a multiple of 32", voff, voff * 2);
  }
  int64_t iterations = h * vrep;
  if (iterations == 0) return 0;
  if (index == 0) return iterations * 8 * 4;
  if (index == 1) return (mode ? iterations * 8 : iterations) * 2;
  return (vrep - 1) * voff * 2 + 7 * blk * 32 + 32;
}

}  // namespace

void define_gather_ops(OpTable& t) {
  // brcb operands: dst, src, repeat_times, dst_blk_stride, dst_rep_stride
  t.def(OpCode::Brcb, "brcb")
      .pipe(Pipe::V)
      .operands(2, K::LocalTensor)
      .operands(3, K::IntScalar)
      .check(check_ub_same_dtype)
      .reads(1, extent())
      .writes(0, extent())
      .extent(brcb_extent)
      .dtypes(kBitsDtypes)
      .mask_register(MaskReg::ResetsBits)
      .cost(VecCost::Brcb)
      .ascendc("AscendC::Brcb", "{api}({0}, {1}, {2:uint8_t}, AscendC::BrcbRepeatParams({3..5:uint16_t}));");
  // gather operands: dst, src, src_offset, src_base, count; the elements read depend on the offsets
  t.def(OpCode::Gather, "gather")
      .pipe(Pipe::V)
      .operands(3, K::LocalTensor)
      .operands(2, K::IntScalar)
      .check(check_gather)
      .reads(2, count(4))
      .reads(1, Span::data_dependent().aligned())
      .writes(0, count(4))
      .dtypes(kBitsDtypes)
      .mask_register(MaskReg::Resets)
      .cost(VecCost::Gather)
      .ascendc("AscendC::Gather", "{api}({0..3}, {3:uint32_t}, {4:uint32_t});");
  t.def(OpCode::Scatter, "scatter")
      .pipe(Pipe::V)
      .operands(3, K::LocalTensor)
      .operands(2, K::IntScalar)
      .check(check_scatter)
      .reads(2, count(4))
      .reads(1, count(4))
      .writes(0, Span::data_dependent())
      .dtypes(kBitsDtypes)
      .mask_register(MaskReg::Resets)
      .cost(CostKind::Vector)
      .ascendc("AscendC::Scatter", "{api}({0..3}, {3:uint32_t}, {4:uint32_t});");
  t.def(OpCode::ScatterMaskForm, "scatter.mask")
      .pipe(Pipe::V)
      .operands(3, K::LocalTensor)
      .operands(5, K::IntScalar)
      .attr("mask_mode")
      .check(check_scatter)
      .reads(2, extent())
      .reads(1, extent())
      .writes(0, Span::data_dependent())
      .extent(scatter_extent)
      .dtypes(kBitsDtypes)
      .mask_register(MaskReg::Operands, 4)
      .cost(CostKind::Vector)
      .ascendc("AscendC::Scatter",
               "{api}<{T:0}, {set_mask}>({0..3}, {3:uint32_t}, {mask:4}, {6:uint8_t}, {7:uint8_t});");
  t.def(OpCode::GatherMaskForm, "gather.mask")
      .pipe(Pipe::V)
      .operands(3, K::LocalTensor)
      .operands(5, K::IntScalar)
      .attr("mask_mode")
      .check(check_gather)
      .reads(2, extent())
      .reads(1, Span::data_dependent().aligned())
      .writes(0, extent())
      .extent(gather_extent)
      .dtypes(kBitsDtypes)
      .mask_register(MaskReg::Operands, 4)
      .cost(VecCost::Gather)
      .ascendc("AscendC::Gather",
               "{api}<{T:0}, {set_mask}>({0..3}, {3:uint32_t}, {mask:4}, {6:uint8_t}, {7:uint16_t});");
  // gather_mask: the pattern a tensor (gather_mask) or a built-in one (gather_mask.pattern); the kept count
  // (written where the result goes) decides what dst gets
  for (bool tensor_pattern : {true, false}) {
    Row& row = t.def(tensor_pattern ? OpCode::GatherMask : OpCode::GatherMaskPattern,
                     tensor_pattern ? "gather_mask" : "gather_mask.pattern");
    row.pipe(Pipe::V)
        .operands({K::LocalTensor, K::LocalTensor, tensor_pattern ? K::LocalTensor : K::IntScalar})
        .operands(6, K::IntScalar)
        .result(uint64_result)
        .check(check_gather_mask)
        .reads(1, extent());
    if (tensor_pattern) row.reads(2, extent());
    row.writes(0, Span::data_dependent())
        .extent(gather_mask_extent)
        .dtypes(kBitsDtypes & ~dtype_bits({DType::BFloat16}))
        .mask_register(MaskReg::LoadsRaw, 4)
        .cost(VecCost::GatherMask)
        .ascendc("AscendC::GatherMask",
                 std::string("uint64_t {result} = 0;\n{api}({0}, {1}, ") + (tensor_pattern ? "{2}" : "{2:uint8_t}") +
                     ", {3:bool}, {4:uint32_t}, AscendC::GatherMaskParams({5..9:uint16_t}), {result});");
  }
  t.def(OpCode::Gatherb, "gatherb")
      .pipe(Pipe::V)
      .operands(3, K::LocalTensor)
      .operands(3, K::IntScalar)
      .check(check_gatherb)
      .reads(2, extent())
      .reads(1, Span::data_dependent().aligned())
      .writes(0, extent())
      .extent(gatherb_extent)
      .dtypes(kBitsDtypes)
      .cost(CostKind::Vector)
      .doc("dst block 8r + b = the src0 block at byte offset offset[8r + b]")
      .ascendc("AscendC::Gatherb", "{api}({0..3}, {3:uint8_t}, AscendC::GatherRepeatParams({4..6:uint16_t}));");
  // RSVD_CNT, which every gather_mask sets: read once the vector instructions before it ran
  t.def(OpCode::GetGatherMaskRemainCount, "get_gather_mask_remain_count")
      .pipe(Pipe::V)
      .result(uint64_result)
      .cost(CostKind::Vector)
      .doc("the kept count of this core's last gather_mask")
      .ascendc("AscendC::GetGatherMaskRemainCount", "uint64_t {result} = static_cast<uint64_t>({api}());");
  t.def(OpCode::BilinearInterpolation, "bilinear_interpolation")
      .pipe(Pipe::V)
      .operands(4, K::LocalTensor)
      .operands(7, K::IntScalar)
      .operands({K::LocalTensor})
      .attr("mask_mode")
      .check(check_bilinear)
      .reads(2, extent())
      .reads(3, extent())
      .reads(1, Span::data_dependent().aligned())
      .writes(0, extent())
      .extent(bilinear_extent)
      .dtypes(dtype_bits({DType::Float16}))
      .mask_register(MaskReg::Operands, 4)
      .cost(CostKind::Vector)
      .doc("dst blocks += src0 blocks at src0_offset * src1, per horizontal iteration")
      .ascendc("AscendC::BilinearInterpolation",
               "{api}({0..4}, {mask:4}, {6:uint8_t}, {7:bool}, {8:uint16_t}, {9:uint16_t}, {10:uint8_t}, {11});");
}

}  // namespace asc::rows
