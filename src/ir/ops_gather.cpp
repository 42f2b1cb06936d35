// Rows of broadcast and gathers: brcb, gather (by byte offsets) and
// gather_mask (by a bit pattern).
#include "ir/op_rows.h"
#include "ir/row_rules.h"

namespace asc::rows {
namespace {

// The 16- and 32-bit element dtypes.
constexpr uint32_t kBitsDtypes = dtype_bits(
    {DType::Int16, DType::UInt16, DType::Float16, DType::BFloat16, DType::Int32, DType::UInt32, DType::Float32});

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
      .cost(CostKind::Vector)
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
      .cost(CostKind::Vector)
      .ascendc("AscendC::Gather", "{api}({0..3}, {3:uint32_t}, {4:uint32_t});");
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
      .cost(CostKind::Vector)
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
        .cost(CostKind::Vector)
        .ascendc("AscendC::GatherMask",
                 std::string("uint64_t {result} = 0;\n{api}({0}, {1}, ") + (tensor_pattern ? "{2}" : "{2:uint8_t}") +
                     ", {3:bool}, {4:uint32_t}, AscendC::GatherMaskParams({5..9:uint16_t}), {result});");
  }
}

}  // namespace asc::rows
