// Rows of debugging output: printf and dump_tensor.
#include "ir/op_rows.h"
#include "ir/printf_format.h"
#include "ir/row_rules.h"

namespace asc::rows {
namespace {

constexpr size_t kMaxPrintfArgs = 12;  // a pipe queue entry's operands

constexpr size_t kMaxDumpShapeDims = 8;

void check_printf(const OpView& v) {
  std::vector<FormatPiece> pieces;
  try {
    pieces = parse_printf_format(v.op.attr(0).s);
  } catch (const Error& e) {
    throw Error(e.status(), e.what(), v.op.loc);
  }
  size_t arg = 0;
  for (const FormatPiece& p : pieces) {
    if (!p.conversion) continue;
    if (arg >= v.op.operands.size())
      type_error(v, fmt::format("the format has more conversions than the {} values given", v.op.operands.size()));
    DType d = v.operand_type(arg).dtype;
    bool integer = dtype_is_int(d) || d == DType::Bool;
    if (conversion_is_integer(p.conversion) != integer)
      type_error(v, fmt::format("{} (value {}) needs {} value, got {}", p.text, arg + 1,
                                integer ? "a floating-point" : "an integer", dtype_name(d)));
    ++arg;
  }
  if (arg != v.op.operands.size())
    type_error(v, fmt::format("the format has {} conversions but {} values are given", arg, v.op.operands.size()));
}

void check_dump_tensor(const OpView& v) {
  TypeKind k = v.operand_type(0).kind;
  if (k != TypeKind::LocalTensor && k != TypeKind::GlobalTensor)
    type_error(v, "the tensor must be a LocalTensor or a GlobalTensor");
}

}  // namespace

void define_debug_ops(OpTable& t) {
  // the format is a C string literal of the emitted file: hand-spelled
  t.def(OpCode::Printf, "printf")
      .operands(kMaxPrintfArgs, K::AnyScalar)
      .optional_from(0)
      .attr("format", ASC_ATTR_STRING)
      .check(check_printf)
      .ascendc("AscendC::printf");
  // dump_tensor(tensor, desc, count[, the dims of an optional ShapeInfo])
  t.def(OpCode::DumpTensor, "dump_tensor")
      .operands({K::Any, K::IntScalar, K::IntScalar})
      .operands(kMaxDumpShapeDims, K::IntScalar)
      .optional_from(3)
      .check(check_dump_tensor)
      .reads(0, count(2).unaligned())
      .cost(CostKind::ScalarMemory)
      .ascendc("AscendC::DumpTensor");
}

}  // namespace asc::rows
