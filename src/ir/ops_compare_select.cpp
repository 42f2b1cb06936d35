// Rows of compare and select: compare: dst bit i (little-endian within each
// byte) = cmp(src0[i], src1[i]); select: dst[i] = bit i of sel_mask ? src0[i]
// : src1[i] (src1 a tensor, mode VSEL_TENSOR_TENSOR_MODE, or a scalar,
// VSEL_TENSOR_SCALAR_MODE). Count forms, mask/repeat forms, and the forms
// through the CMPMASK register.
#include "ir/op_rows.h"
#include "ir/row_rules.h"

namespace asc::rows {
namespace {

void check_compare(const OpView& v) {
  require_ub_position(v, 0, "dst");
  require_ub_position(v, 1, "src0");
  require_row_dtype(v, v.op.info().dtype_operand);
  if (!dtype_is_int(v.operand_type(0).dtype)) type_error(v, "dst holds the result bits: use an integer dtype");
  if (v.op.code == OpCode::Compare || v.op.code == OpCode::CompareMask) {
    require_ub_position(v, 2, "src1");
    require_same_dtype(v, 1, 2);
  } else if (v.operand_type(2).dtype != v.operand_type(1).dtype) {
    type_error(v, "the scalar must have src0's dtype");
  }
  int64_t mode = v.op.attr_int(attr_index(v.op.info(), "cmp_mode"));
  if (mode < 0 || mode > 5) type_error(v, fmt::format("unknown CMPMODE {}", mode));
}

void check_select_operands(const OpView& v) {
  require_ub_position(v, 0, "dst");
  require_ub_position(v, 1, "sel_mask");
  require_ub_position(v, 2, "src0");
  require_same_dtype(v, 0, 2);
  require_row_dtype(v, v.op.info().dtype_operand);
  if (!dtype_is_int(v.operand_type(1).dtype)) type_error(v, "sel_mask holds bits: use an integer dtype");
  if (v.op.code == OpCode::Select || v.op.code == OpCode::SelectMask) {
    require_ub_position(v, 3, "src1");
    require_same_dtype(v, 0, 3);
  } else if (v.operand_type(3).dtype != v.operand_type(0).dtype) {
    type_error(v, "the scalar must have dst's dtype");
  }
}

void check_select(const OpView& v) {
  check_select_operands(v);
  int64_t mode = v.op.attr_int(attr_index(v.op.info(), "sel_mode"));
  bool scalar = v.op.code == OpCode::SelectScalar || v.op.code == OpCode::SelectScalarMask;
  if (!scalar && mode != 0 && mode != 2)
    type_error(v, "a tensor src1 takes VSEL_CMPMASK_SPR or VSEL_TENSOR_TENSOR_MODE");
  if (scalar && mode != 1) type_error(v, "a scalar src1 takes VSEL_TENSOR_SCALAR_MODE");
}

void check_compare_mask(const OpView& v) {
  check_compare(v);
  check_mask_mode(v);
}

// compare(.scalar).mask operands: dst, src0, src1 (tensor or scalar), mask0,
// mask1, repeat_times, then block strides and repeat strides (dst first) of
// BinaryRepeatParams / UnaryRepeatParams. Atlas A2 compares all of each
// repeat's elements (the mask is reserved) and writes the N result bits of
// repeat r at dst + r * N / 8 bytes (dst's strides are ignored).
int64_t compare_mask_extent(const Op& op, const int64_t* in, size_t index, int64_t size) {
  bool scalar = op.code == OpCode::CompareScalarMask;
  int64_t repeats = in[5], tensors = scalar ? 2 : 3;
  for (int64_t k = 6; k < 6 + 2 * tensors; ++k)
    if (in[k] > 255)
      fail(ASC_ERR_INVALID_ARGUMENT, op.loc, "{}: strides must be 0..255, got {}", op.info().name, in[k]);
  if (repeats > 255)
    fail(ASC_ERR_INVALID_ARGUMENT, op.loc, "{}: repeat_times {} must be 0..255", op.info().name, repeats);
  if (repeats == 0) return 0;
  size_t sources = scalar ? 1 : 2;
  if (index == sources) return repeats * (256 / size) / 8;  // dst bits
  int64_t blk = in[6 + 1 + index], rep = in[6 + tensors + 1 + index];
  return ((repeats - 1) * rep + 7 * blk) * 32 + 32;
}

// select(.scalar).mask operands: dst, sel_mask, src0, src1 (tensor or
// scalar), mask0, mask1, repeat_times, block strides (dst, src0, src1), repeat
// strides (dst, src0, src1). Attributes: mask_mode, sel_mode (0
// VSEL_CMPMASK_SPR: the first N bits of sel_mask serve every repeat; 1 and 2:
// repeat r uses bits [rN, rN + N)).
void check_select_mask(const OpView& v) {
  check_select(v);
  check_mask_mode(v);
}

int64_t select_bits_extent(const Op& op, const int64_t* in, size_t, int64_t size) {
  int64_t repeats = in[6], per_repeat = 256 / size;
  if (repeats > 255)
    fail(ASC_ERR_INVALID_ARGUMENT, op.loc, "{}: repeat_times {} must be 0..255", op.info().name, repeats);
  if (repeats == 0) return 0;
  return (op.attr_int(1) == 0 ? 1 : repeats) * per_repeat / 8;
}

void check_compare_register(const OpView& v) {
  require_ub_position(v, 0, "src0");
  require_ub_position(v, 1, "src1");
  require_same_dtype(v, 0, 1);
  require_row_dtype(v, v.op.info().dtype_operand);
  check_mask_mode(v);
  if (v.op.attr_int(1) < 0 || v.op.attr_int(1) > 5) type_error(v, fmt::format("unknown CMPMODE {}", v.op.attr_int(1)));
}

void check_select_register(const OpView& v) {
  require_ub_position(v, 0, "dst");
  require_ub_position(v, 1, "src0");
  require_ub_position(v, 2, "src1");
  require_same_dtype(v, 0, 1);
  require_same_dtype(v, 0, 2);
  require_row_dtype(v, v.op.info().dtype_operand);
}

void check_select_scalar_register(const OpView& v) {
  require_ub_position(v, 0, "dst");
  require_ub_position(v, 1, "sel_mask");
  require_ub_position(v, 2, "src0");
  require_same_dtype(v, 0, 2);
  require_row_dtype(v, v.op.info().dtype_operand);
  if (!dtype_is_int(v.operand_type(1).dtype)) type_error(v, "sel_mask holds bits: use an integer dtype");
}

// select_scalar.register reads repeat r's N bits at sel_mask + r * N / 8 bytes (its stride does not apply).
int64_t select_register_bits_extent(const Op& op, const int64_t* in, size_t, int64_t size) {
  int64_t repeats = in[5];
  if (repeats > 255)
    fail(ASC_ERR_INVALID_ARGUMENT, op.loc, "{}: repeat_times {} must be 0..255", op.info().name, repeats);
  return repeats * (256 / size) / 8;
}

void check_cmp_mask_tensor(const OpView& v) { require_ub_position(v, 0, "the tensor"); }

}  // namespace

void define_compare_select_ops(OpTable& t) {
  // dst, src0, src1 (tensor or scalar), count, dst_count (dst elements holding count bits, derived: not spelled)
  for (bool scalar : {false, true}) {
    Row& row = t.def(scalar ? OpCode::CompareScalar : OpCode::Compare, scalar ? "compare_scalar" : "compare");
    row.pipe(Pipe::V)
        .operands({K::LocalTensor, K::LocalTensor, scalar ? K::AnyScalar : K::LocalTensor})
        .operands(2, K::IntScalar)
        .attr("cmp_mode")
        .check(check_compare)
        .reads(1, count(3));
    if (!scalar) row.reads(2, count(3));
    row.writes(0, count(4))
        .dtypes(kFLOAT, 1)
        .cost(scalar ? VecCost::CompareScalar : VecCost::Compare)
        .ascendc(scalar ? "AscendC::CompareScalar" : "AscendC::Compare",
                 "{api}({0..3}, {enum:cmp_mode}, {3:uint32_t});");
  }
  // dst, sel_mask, src0, src1 (tensor or scalar), count, mask_count (sel_mask elements holding count bits, derived)
  for (bool scalar : {false, true}) {
    Row& row = t.def(scalar ? OpCode::SelectScalar : OpCode::Select, scalar ? "select_scalar" : "select");
    row.pipe(Pipe::V)
        .operands({K::LocalTensor, K::LocalTensor, K::LocalTensor, scalar ? K::AnyScalar : K::LocalTensor})
        .operands(2, K::IntScalar)
        .attr_default("sel_mode", scalar ? 1 : 2)
        .check(check_select)
        .reads(1, count(5))
        .reads(2, count(4));
    if (!scalar) row.reads(3, count(4));
    row.writes(0, count(4))
        .dtypes(kFLOAT)
        .mask_register(MaskReg::Resets)
        .cost(VecCost::Select)
        .ascendc("AscendC::Select", "{api}({0..4}, {enum:sel_mode}, {4:uint32_t});");
  }
  // compare(.scalar).mask: dst, src0, src1 (tensor or scalar), mask0, mask1, repeat_times, then the block strides
  // and repeat strides (dst first) of BinaryRepeatParams / UnaryRepeatParams. The mask is reserved on Atlas A2:
  // never loaded into the register.
  for (bool scalar : {false, true}) {
    Row& row = t.def(scalar ? OpCode::CompareScalarMask : OpCode::CompareMask,
                     scalar ? "compare_scalar.mask" : "compare.mask");
    row.pipe(Pipe::V)
        .operands({K::LocalTensor, K::LocalTensor, scalar ? K::AnyScalar : K::LocalTensor})
        .operands(scalar ? 7 : 9, K::IntScalar)
        .attr("mask_mode")
        .attr("cmp_mode")
        .check(check_compare_mask)
        .reads(1, extent());
    if (!scalar) row.reads(2, extent());
    row.writes(0, extent())
        .extent(compare_mask_extent, 1)
        .dtypes(kFLOAT, 1)
        .mask_operands(3)
        .cost(scalar ? VecCost::CompareScalar : VecCost::Compare)
        .ascendc(scalar ? "AscendC::CompareScalar" : "AscendC::Compare",
                 std::string("{api}<{T:1}, {T:0}, {set_mask}>({0..3}, {enum:cmp_mode}, {mask:3}, {5:uint8_t}, "
                             "AscendC::") +
                     (scalar ? "Unary" : "Binary") + "RepeatParams({6..:uint16_t}));");
  }
  // select(.scalar).mask: dst, sel_mask, src0, src1 (tensor or scalar), mask0, mask1, repeat_times, block strides
  // (dst, src0, src1), repeat strides (dst, src0, src1)
  for (bool scalar : {false, true}) {
    Row& row =
        t.def(scalar ? OpCode::SelectScalarMask : OpCode::SelectMask, scalar ? "select_scalar.mask" : "select.mask");
    row.pipe(Pipe::V)
        .operands({K::LocalTensor, K::LocalTensor, K::LocalTensor, scalar ? K::AnyScalar : K::LocalTensor})
        .operands(9, K::IntScalar)
        .attr("mask_mode")
        .attr("sel_mode")
        .check(check_select_mask)
        .reads(1, extent())
        .reads(2, strided(4, 6, 8, 11));
    if (!scalar) row.reads(3, strided(4, 6, 9, 12));
    row.writes(0, strided(4, 6, 7, 10))
        .extent(select_bits_extent)
        .dtypes(kFLOAT)
        .mask_register(MaskReg::Operands, 4)
        .cost(VecCost::Select)
        .ascendc("AscendC::Select",
                 "{api}<{T:0}, {T:1}, {set_mask}>({0..4}, {enum:sel_mode}, {mask:4}, {6:uint8_t}, "
                 "AscendC::BinaryRepeatParams({7..:uint16_t}));");
  }
  // compare.register: src0, src1, mask0, mask1, repeat (1), src0_blk, src1_blk, src0_rep, src1_rep
  t.def(OpCode::CompareRegister, "compare.register")
      .pipe(Pipe::V)
      .operands(2, K::LocalTensor)
      .operands(7, K::IntScalar)
      .attr("mask_mode")
      .attr("cmp_mode")
      .check(check_compare_register)
      .reads(0, strided(2, 4, 5, 7))
      .reads(1, strided(2, 4, 6, 8))
      .dtypes(kFLOAT)
      .mask_register(MaskReg::Operands, 2)
      .cost(VecCost::Compare)
      .ascendc("AscendC::Compare",
               "{api}<{T:0}, {set_mask}>({0..2}, {enum:cmp_mode}, {mask:2}, AscendC::BinaryRepeatParams(1, "
               "{5:uint16_t}, {6:uint16_t}, 8, {7:uint16_t}, {8:uint16_t}));");
  // select.register: dst, src0, src1, mask0 (0), mask1 (0), repeat_times, blk x3, rep x3: the mask register and
  // CMPMASK decide
  t.def(OpCode::SelectRegister, "select.register")
      .pipe(Pipe::V)
      .operands(3, K::LocalTensor)
      .operands(9, K::IntScalar)
      .attr("mask_mode")
      .check(check_select_register)
      .reads(1, strided(3, 5, 7, 10))
      .reads(2, strided(3, 5, 8, 11))
      .writes(0, strided(3, 5, 6, 9))
      .mask_register(MaskReg::Operands, 3)
      .dtypes(kFLOAT)
      .cost(VecCost::Select)
      .ascendc("AscendC::Select",
               "{api}<{T:0}, AscendC::SELMODE::VSEL_CMPMASK_SPR>({0..3}, {5:uint8_t}, "
               "AscendC::BinaryRepeatParams({6..12:uint16_t}));");
  // select_scalar.register: dst, sel_mask, src0, mask0 (0), mask1 (0), repeat_times, blk x3, rep x3.
  // VSEL_TENSOR_SCALAR_MODE with the scalar already in CMPMASK (its low sizeof(T) bytes, put there by
  // set_cmp_mask or by a scalar select) and the mask register's mask: "Select(dst, selMask, src0, repeatTime,
  // repeatParams) ... 需要和 SetVectorMask、SetCmpMask 配合使用; 模式1 SetCmpMask 中传入 src1"
  // (https://github.com/cannmirror/asc-devkit docs/zh/api/SIMD-API/基础API/Memory矢量计算/比较与选择/Select.md and
  // SetCmpMask(ISASI).md).
  t.def(OpCode::SelectScalarRegister, "select_scalar.register")
      .pipe(Pipe::V)
      .operands(3, K::LocalTensor)
      .operands(9, K::IntScalar)
      .attr("mask_mode")
      .check(check_select_scalar_register)
      .reads(1, extent())
      .reads(2, strided(3, 5, 7, 10))
      .writes(0, strided(3, 5, 6, 9))
      .extent(select_register_bits_extent)
      .mask_register(MaskReg::Operands, 3)
      .dtypes(kFLOAT)
      .cost(VecCost::Select)
      .ascendc("AscendC::Select",
               "{api}<{T:0}, {T:1}>({0..3}, {5:uint8_t}, AscendC::BinaryRepeatParams({6..12:uint16_t}));");
  // the 128 bits of CMPMASK
  auto cmp_mask_bytes = [](const Op&, const int64_t*, size_t, int64_t) -> int64_t { return 16; };
  t.def(OpCode::GetCmpMask, "get_cmp_mask")
      .pipe(Pipe::V)
      .operands({K::LocalTensor})
      .check(check_cmp_mask_tensor)
      .writes(0, extent())
      .extent(cmp_mask_bytes)
      .cost(CostKind::Vector)
      .ascendc("AscendC::GetCmpMask", "{api}({0});");
  t.def(OpCode::SetCmpMask, "set_cmp_mask")
      .pipe(Pipe::V)
      .operands({K::LocalTensor})
      .check(check_cmp_mask_tensor)
      .reads(0, extent())
      .extent(cmp_mask_bytes)
      .cost(CostKind::Vector)
      .ascendc("AscendC::SetCmpMask", "{api}({0});");
}

}  // namespace asc::rows
