// Rows of the reductions: reduce_* over a count (with a scratch buffer),
// whole_reduce_* / block_reduce_* / pair_reduce_sum per repeat, and the
// mask/repeat forms of reduce_*.
#include "ir/op_rows.h"
#include "ir/row_rules.h"

namespace asc::rows {
namespace {

void check_reduce(const OpView& v) {
  require_ub_position(v, 0, "dst");
  require_ub_position(v, 1, "src");
  require_same_dtype(v, 0, 1);
  require_row_dtype(v, v.op.info().dtype_operand);
}

void check_reduce_count(const OpView& v) {
  check_reduce(v);
  require_ub_position(v, 2, "shared_tmp_buffer");
  int64_t results;
  if (!v.operand_const_int(4, &results) || results < 1 || results > 2)
    type_error(v, "the result count operand is 1 (value) or 2 (value and index)");
}

void check_whole_reduce(const OpView& v) {
  check_reduce(v);
  check_mask_mode(v);
  if (v.op.attrs.size() > 1 && (v.op.attr_int(1) < 0 || v.op.attr_int(1) > 3))
    type_error(v, fmt::format("unknown ReduceOrder {}", v.op.attr_int(1)));
}

// Per-repeat result width of whole_reduce_*: a sum is one element; max/min
// write (value, index) pairs, a value alone, or a 4-byte index (ReduceOrder).
uint32_t whole_reduce_elements(const Op& op, DType d) {
  switch (op.code) {
    case OpCode::WholeReduceSum: return 1;
    case OpCode::BlockReduceSum:
    case OpCode::BlockReduceMax:
    case OpCode::BlockReduceMin: return 8;                   // one per data block; dst_rep_stride counts 8 results
    case OpCode::PairReduceSum: return 128 / dtype_size(d);  // dst_rep_stride counts 128 bytes
    default: break;
  }
  switch (op.attr_int(1)) {
    case 2: return 1;                  // ORDER_ONLY_VALUE
    case 3: return 4 / dtype_size(d);  // ORDER_ONLY_INDEX: a uint32
    default: return 2;                 // ORDER_VALUE_INDEX / ORDER_INDEX_VALUE
  }
}

void check_reduce_mask(const OpView& v) {
  check_reduce(v);
  require_ub_position(v, 2, "shared_tmp_buffer");
  check_mask_mode(v);
  int64_t results;
  if (!v.operand_const_int(7, &results) || results < 1 || results > 2)
    type_error(v, "the result count operand is 1 (value) or 2 (value and index)");
}

// reduce_*.mask operands: dst, src, tmp, mask0, mask1, repeat_time,
// src_rep_stride, results. Repeat r covers 256 bytes from r * src_rep_stride
// blocks (block stride 1). Effect 0 reads src; 1 writes the results.
int64_t reduce_mask_extent(const Op& op, const int64_t* in, size_t, int64_t) {
  int64_t repeats = in[5], rep = in[6];
  if (repeats > 255 || rep > 65535)
    fail(ASC_ERR_INVALID_ARGUMENT, op.loc, "{}: repeat_time {} must be 0..255 and src_rep_stride {} 0..65535",
         op.info().name, repeats, rep);
  return repeats ? (repeats - 1) * rep * 32 + 256 : 0;
}

}  // namespace

void define_reduce_ops(OpTable& t) {
  // dst, src, shared_tmp_buffer, count, results (1 or 2, a constant): the last is calIndex
  for (auto [code, name, ascendc, spelling, vcost] :
       {std::tuple{OpCode::ReduceSum, "reduce_sum", "AscendC::ReduceSum", "{api}({0..3}, {3:int32_t});",
                   VecCost::ReduceSum},
        std::tuple{OpCode::ReduceMax, "reduce_max", "AscendC::ReduceMax", "{api}({0..3}, {3:int32_t}, {4} == 2);",
                   VecCost::ReduceMax},
        std::tuple{OpCode::ReduceMin, "reduce_min", "AscendC::ReduceMin", "{api}({0..3}, {3:int32_t}, {4} == 2);",
                   VecCost::ReduceMin}})
    t.def(code, name)
        .pipe(Pipe::V)
        .operands(3, K::LocalTensor)
        .operands(2, K::IntScalar)
        .check(check_reduce_count)
        .reads(1, count(3))
        .writes(0, count(4))
        .cost(vcost)
        .dtypes(kFLOAT)
        .ascendc(ascendc, spelling);
  // dst, src, mask0, mask1, repeat_times, dst_rep_stride, src_blk_stride, src_rep_stride; in counter mode the mask
  // register decides the repeat count
  const std::string whole = "{api}<{T:0}, {set_mask}>({0..2}, {mask:2}, {4:int32_t}, {5..8:int32_t}";
  // block_reduce_* and pair_reduce_sum: the repeat count before the mask
  const char* block = "{api}<{T:0}, {set_mask}>({0..2}, {4:int32_t}, {mask:2}, {5..8:int32_t});";
  for (auto [code, name, ascendc, with_order, vcost] :
       {std::tuple{OpCode::WholeReduceSum, "whole_reduce_sum", "AscendC::WholeReduceSum", false,
                   VecCost::WholeReduceSum},
        std::tuple{OpCode::WholeReduceMax, "whole_reduce_max", "AscendC::WholeReduceMax", true,
                   VecCost::WholeReduceMax},
        std::tuple{OpCode::WholeReduceMin, "whole_reduce_min", "AscendC::WholeReduceMin", true,
                   VecCost::WholeReduceMin},
        std::tuple{OpCode::BlockReduceSum, "block_reduce_sum", "AscendC::BlockReduceSum", false,
                   VecCost::BlockReduceSum},
        std::tuple{OpCode::BlockReduceMax, "block_reduce_max", "AscendC::BlockReduceMax", false,
                   VecCost::BlockReduceMax},
        std::tuple{OpCode::BlockReduceMin, "block_reduce_min", "AscendC::BlockReduceMin", false,
                   VecCost::BlockReduceMin},
        std::tuple{OpCode::PairReduceSum, "pair_reduce_sum", "AscendC::PairReduceSum", false,
                   VecCost::PairReduceSum}}) {
    bool whole_form = code == OpCode::WholeReduceSum || with_order;
    Row& row = t.def(code, name).pipe(Pipe::V).operands(2, K::LocalTensor).operands(6, K::IntScalar).attr("mask_mode");
    if (with_order) row.attr_default("order", 0);
    row.check(check_whole_reduce)
        .reads(1, strided(2, 4, 6, 7))
        .writes(0, Span::results(4, 5, 2).unaligned())
        .result_elements(whole_reduce_elements)
        .dtypes(kFLOAT)
        .mask_register(MaskReg::Operands, 2)
        .cost(vcost)
        .ascendc(ascendc, whole_form ? whole + (with_order ? ", {enum:order});" : ");") : block);
  }
  // reduce_*.mask: dst, src, tmp, mask0, mask1, repeat_time, src_rep_stride, results; the register is left alone
  for (auto [code, name, ascendc, index, vcost] :
       {std::tuple{OpCode::ReduceSumMask, "reduce_sum.mask", "AscendC::ReduceSum", "", VecCost::ReduceSum},
        std::tuple{OpCode::ReduceMaxMask, "reduce_max.mask", "AscendC::ReduceMax", ", {7} == 2", VecCost::ReduceMax},
        std::tuple{OpCode::ReduceMinMask, "reduce_min.mask", "AscendC::ReduceMin", ", {7} == 2", VecCost::ReduceMin}})
    t.def(code, name)
        .pipe(Pipe::V)
        .operands(3, K::LocalTensor)
        .operands(5, K::IntScalar)
        .attr("mask_mode")
        .check(check_reduce_mask)
        .reads(1, extent())
        .writes(0, count(7).unaligned())
        .extent(reduce_mask_extent)
        .dtypes(kFLOAT)
        .mask_operands(3)
        .cost(vcost)
        .ascendc(ascendc, std::string("{api}<{T:0}>({0..3}, {mask:3}, {5:int32_t}, {6:int32_t}") + index + ");");
}

}  // namespace asc::rows
