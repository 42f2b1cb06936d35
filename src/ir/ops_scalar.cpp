// Rows of the scalar unit: structure (for, if), constants and variables,
// scalar arithmetic and comparisons, block queries, the Matmul markers.
#include <cctype>

#include "ir/matmul_api.h"
#include "ir/op_rows.h"
#include "ir/row_rules.h"

namespace asc::rows {
namespace {

// An integer constant given as a floating-point value must be one an int64 holds (it is truncated to it).
void check_const(const OpView& v) {
  check_dtype_attr(v);
  const Attr& value = v.op.attr(1);
  if (value.kind != ASC_ATTR_FLOAT || dtype_is_float(static_cast<DType>(v.op.attr_int(0)))) return;
  if (!(value.f >= -9223372036854775808.0 && value.f < 9223372036854775808.0))
    type_error(v, fmt::format("value {} is not an integer an int64 can hold", value.f));
}

void check_assign(const OpView& v) {
  const Type& dst = v.operand_type(0);
  if (dst != v.operand_type(1))
    type_error(v, fmt::format("cannot assign a {} to a variable of type {}", v.operand_type(1).str(), dst.str()));
  const Op* def = v.kernel.value_def[v.op.operands[0]];
  if (!def || def->code != OpCode::Var) type_error(v, "the destination must be a value created by `var`");
}

void check_same_scalars(const OpView& v) { require_same_dtype(v, 0, 1); }

void check_int_scalars(const OpView& v) {
  require_same_dtype(v, 0, 1);
  if (!v.operand_type(0).is_int_scalar()) type_error(v, "needs integer operands");
}

void check_float_scalars(const OpView& v) {
  require_same_dtype(v, 0, 1);
  if (!dtype_is_float(v.operand_type(0).dtype)) type_error(v, "needs floating-point operands");
}

void check_for(const OpView& v) {
  require_same_dtype(v, 0, 1);
  require_same_dtype(v, 0, 2);
  int64_t step;
  if (v.operand_const_int(2, &step) && step == 0) type_error(v, "range() step must not be zero");
}

// register_matmul in a Matmul kernel: no operands (a kernel built by hand), or the workspace and the 49 fields
// named by `fields`, with the A, B, C and bias MatmulTypes (position, format, dtype, transposed) as attributes.
void check_matmul_server(const OpView& v) {
  if (v.op.operands.empty()) return;
  if (v.op.operands.size() != 1 + kTilingFields)
    type_error(v, fmt::format("takes the workspace and the {} TCubeTiling fields, got {} operands", kTilingFields,
                              v.op.operands.size()));
  // the C member names, written into the emitted source: identifiers only
  size_t names = 1;
  bool start = true, identifiers = true;
  for (char c : v.op.attr(1).s) {
    names += c == ',';
    bool letter = std::isalpha(static_cast<unsigned char>(c)) || c == '_';
    identifiers =
        identifiers && (c == ',' ? !start : letter || (!start && std::isdigit(static_cast<unsigned char>(c))));
    start = c == ',';
  }
  if (start || !identifiers || names != kTilingFields)
    type_error(
        v, fmt::format("`fields` must name the {} TCubeTiling fields (C identifiers), comma-separated", kTilingFields));
  for (size_t m = 0; m < 4; ++m) {
    int64_t position = v.op.attr_int(2 + 4 * m), dtype = v.op.attr_int(4 + 4 * m);
    if (position < 0 || !position_valid(static_cast<uint32_t>(position)))
      type_error(v, fmt::format("unknown TPosition {} in a MatmulType", position));
    if (dtype < 0 || !dtype_valid(static_cast<uint32_t>(dtype)))
      type_error(v, fmt::format("unknown dtype {} in a MatmulType", dtype));
  }
}

void check_matmul_call(const OpView& v) {
  const MatmulApi* api = find_matmul_api(v.op.attr(1).s);
  if (!api) type_error(v, fmt::format("unknown Matmul call '{}'", v.op.attr(1).s));
  if (v.op.operands.size() != api->operands)
    type_error(v, fmt::format("Matmul.{} takes {} operands, got {}", api->name, api->operands, v.op.operands.size()));
}

// Scalar arithmetic: `{type} v = static_cast<type>(expr)`, the expression in C++ with the operands' names.
std::string scalar_expr(const char* expr) {
  return std::string("{T:result} {result} = static_cast<{T:result}>(") + expr + ");";
}

void binary(OpTable& t, OpCode code, const char* name, CheckFn check, const char* expr) {
  t.def(code, name)
      .operands({K::AnyScalar, K::AnyScalar})
      .result(same_as_operand0)
      .check(check)
      .spelled(scalar_expr(expr))
      .pure();
}

void comparison(OpTable& t, OpCode code, const char* name, const char* sign) {
  t.def(code, name)
      .operands({K::AnyScalar, K::AnyScalar})
      .result(bool_result)
      .check(check_same_scalars)
      .spelled(std::string("bool {result} = {0} ") + sign + " {1};")
      .pure();
}

// ---- scalar conversion and bit counting ---------------------------------------------------------
// Ascend C's scalar computation APIs. ScalarCast<T, U, roundMode>(valueIn)
// (https://www.hiascend.com/document/detail/en/canncommercial/850/API/ascendcopapi/atlasascendc_api_07_0018.html):
// T float, U half or int32_t; f322f16 only with CAST_ODD, f322s32 with CAST_ROUND, CAST_CEIL, CAST_FLOOR or
// CAST_RINT; "the precision conversion rule is the same as that of Cast". The bit counters, as pyasc documents
// their Ascend C prototypes (python/asc/language/basic/utils.py): int64_t ScalarGetSFFValue<countValue>(uint64_t)
// (the first bit equal to countValue from the least significant bit, -1 if none), int64_t
// ScalarGetCountOfValue<countValue>(uint64_t) (how many bits equal countValue), int64_t
// ScalarCountLeadingZero(uint64_t), int64_t CountBitsCntSameAsSignBit(int64_t) (consecutive bits below the sign
// bit equal to it, -1 for 0 and -1); countValue is 0 or 1.
constexpr const char* kRoundModes[] = {"CAST_NONE",  "CAST_RINT",  "CAST_FLOOR", "CAST_CEIL",
                                       "CAST_ROUND", "CAST_TRUNC", "CAST_ODD"};

void check_scalar_cast(const OpView& v) {
  check_dtype_attr(v);
  if (v.operand_type(0).dtype != DType::Float32)
    type_error(v, fmt::format("converts a float32 scalar, got {}", v.operand_type(0).str()));
  auto to = static_cast<DType>(v.op.attr_int(0));
  int64_t mode = v.op.attr_int(1);
  if (mode < 0 || mode > 6) type_error(v, fmt::format("unknown RoundMode {}", mode));
  // f322f16: CAST_ODD; f322s32: CAST_ROUND, CAST_CEIL, CAST_FLOOR, CAST_RINT
  uint32_t modes = to == DType::Float16 ? 1u << 6
                   : to == DType::Int32 ? (1u << 1) | (1u << 2) | (1u << 3) | (1u << 4)
                                        : 0;
  if (!modes) type_error(v, fmt::format("converts float32 to float16 or int32, not to {}", dtype_name(to)));
  if (!(modes & (1u << mode)))
    type_error(v, fmt::format("float32 to {} does not accept {} (accepted: {})", dtype_name(to), kRoundModes[mode],
                              to == DType::Float16 ? "CAST_ODD" : "CAST_RINT, CAST_FLOOR, CAST_CEIL, CAST_ROUND"));
}

void require_operand_dtype(const OpView& v, DType d) {
  if (v.operand_type(0).dtype != d)
    type_error(v, fmt::format("takes a {} scalar, got {}", dtype_name(d), v.operand_type(0).str()));
}

void check_bit_value(const OpView& v) {
  require_operand_dtype(v, DType::UInt64);
  int64_t value = v.op.attr_int(0);
  if (value != 0 && value != 1) type_error(v, fmt::format("count_value must be 0 or 1, got {}", value));
}

void check_uint64_operand(const OpView& v) { require_operand_dtype(v, DType::UInt64); }
void check_int64_operand(const OpView& v) { require_operand_dtype(v, DType::Int64); }

}  // namespace

void define_scalar_ops(OpTable& t) {
  t.def(OpCode::For, "for")
      .operands({K::IntScalar, K::IntScalar, K::IntScalar})
      .result(same_as_operand0)
      .check(check_for)
      .regions(1)
      .cost(CostKind::Structure)
      .hand_emitted();
  t.def(OpCode::If, "if").operands({K::AnyScalar}).regions(2).cost(CostKind::Structure).hand_emitted();
  t.def(OpCode::Const, "const")
      .attr("dtype")
      .attr("value", ASC_ATTR_FLOAT)
      .result(dtype_attr_scalar)
      .check(check_const)
      .pure()
      .hand_emitted();  // literals: exact hex floats after the Model's rounding
  // auto: a variable of a scalar or of a tensor (a LocalTensor re-pointed in a loop or branch) has its operand's type
  t.def(OpCode::Var, "var").operands({K::Any}).result(same_as_operand0).spelled("auto {result} = {0};");
  t.def(OpCode::Assign, "assign").operands({K::Any, K::Any}).check(check_assign).spelled("{0} = {1};");
  // truncation towards zero, then a wrap to the width: C++ differs for floats into integers
  t.def(OpCode::Cast, "arith.cast")
      .operands({K::AnyScalar})
      .attr("dtype")
      .result(dtype_attr_scalar)
      .check(check_dtype_attr)
      .pure()
      .hand_emitted();
  t.def(OpCode::Neg, "arith.neg").operands({K::AnyScalar}).result(same_as_operand0).spelled(scalar_expr("-{0}")).pure();
  t.def(OpCode::Not, "arith.not").operands({K::AnyScalar}).result(bool_result).spelled("bool {result} = !{0};").pure();
  binary(t, OpCode::AddS, "arith.add", check_same_scalars, "{0} + {1}");
  binary(t, OpCode::SubS, "arith.sub", check_same_scalars, "{0} - {1}");
  binary(t, OpCode::MulS, "arith.mul", check_same_scalars, "{0} * {1}");
  // Python's // and %: asc_floordiv / asc_mod of the file's prelude (floats need a math library call)
  t.def(OpCode::FloorDivS, "arith.floordiv")
      .operands({K::AnyScalar, K::AnyScalar})
      .result(same_as_operand0)
      .check(check_same_scalars)
      .pure()
      .hand_emitted();
  t.def(OpCode::ModS, "arith.mod")
      .operands({K::AnyScalar, K::AnyScalar})
      .result(same_as_operand0)
      .check(check_same_scalars)
      .pure()
      .hand_emitted();
  binary(t, OpCode::TrueDivS, "arith.truediv", check_float_scalars, "{0} / {1}");
  binary(t, OpCode::MinS, "arith.min", check_same_scalars, "{1} < {0} ? {1} : {0}");
  binary(t, OpCode::MaxS, "arith.max", check_same_scalars, "{0} < {1} ? {1} : {0}");
  binary(t, OpCode::AndS, "arith.and", check_int_scalars, "{0} & {1}");
  binary(t, OpCode::OrS, "arith.or", check_int_scalars, "{0} | {1}");
  binary(t, OpCode::XorS, "arith.xor", check_int_scalars, "{0} ^ {1}");
  binary(t, OpCode::ShlS, "arith.shl", check_int_scalars, "asc_shl({0}, {1})");  // shifts past the width
  binary(t, OpCode::ShrS, "arith.shr", check_int_scalars, "asc_shr({0}, {1})");
  comparison(t, OpCode::CmpEq, "cmp.eq", "==");
  comparison(t, OpCode::CmpNe, "cmp.ne", "!=");
  comparison(t, OpCode::CmpLt, "cmp.lt", "<");
  comparison(t, OpCode::CmpLe, "cmp.le", "<=");
  comparison(t, OpCode::CmpGt, "cmp.gt", ">");
  comparison(t, OpCode::CmpGe, "cmp.ge", ">=");
  for (auto [code, name, ascendc] :
       {std::tuple{OpCode::GetBlockIdx, "get_block_idx", "AscendC::GetBlockIdx"},
        std::tuple{OpCode::GetBlockNum, "get_block_num", "AscendC::GetBlockNum"},
        std::tuple{OpCode::GetSubBlockIdx, "get_sub_block_idx", "AscendC::GetSubBlockIdx"},
        std::tuple{OpCode::GetSubBlockNum, "get_sub_block_num", "AscendC::GetSubBlockNum"}})
    t.def(code, name).result(int64_result).ascendc(ascendc, scalar_expr("{api}()")).pure();
  // a `constexpr(...)` condition in Ascend C, usable only as `if ASCEND_IS_AIC`
  for (auto [code, name, ascendc] : {std::tuple{OpCode::AscendIsAic, "ascend_is_aic", "ASCEND_IS_AIC"},
                                     std::tuple{OpCode::AscendIsAiv, "ascend_is_aiv", "ASCEND_IS_AIV"}})
    t.def(code, name)
        .result(bool_result)
        .ascendc(ascendc, std::string("bool {result} = false;\nif ") + ascendc + " {{ {result} = true; }}");

  t.def(OpCode::ScalarCast, "scalar_cast")
      .operands({K::AnyScalar})
      .attr("dtype")
      .attr("round_mode")
      .result(dtype_attr_scalar)
      .check(check_scalar_cast)
      .ascendc("AscendC::ScalarCast", scalar_expr("{api}<float, {T:result}, {enum:round_mode}>({0})"));
  t.def(OpCode::ScalarGetSffValue, "scalar_get_sff_value")
      .operands({K::IntScalar})
      .attr("count_value")
      .result(int64_result)
      .check(check_bit_value)
      .ascendc("AscendC::ScalarGetSFFValue", scalar_expr("{api}<{attr:count_value}>({0})"));
  t.def(OpCode::ScalarGetCountOfValue, "scalar_get_count_of_value")
      .operands({K::IntScalar})
      .attr("count_value")
      .result(int64_result)
      .check(check_bit_value)
      .ascendc("AscendC::ScalarGetCountOfValue", scalar_expr("{api}<{attr:count_value}>({0})"));
  t.def(OpCode::ScalarCountLeadingZero, "scalar_count_leading_zero")
      .operands({K::IntScalar})
      .result(int64_result)
      .check(check_uint64_operand)
      .ascendc("AscendC::ScalarCountLeadingZero", scalar_expr("{api}({0})"));
  t.def(OpCode::CountBitsCntSameAsSignBit, "count_bits_cnt_same_as_sign_bit")
      .operands({K::IntScalar})
      .result(int64_result)
      .check(check_int64_operand)
      .ascendc("AscendC::CountBitsCntSameAsSignBit", scalar_expr("{api}({0})"));

  // register_matmul in a mix kernel: the workspace, then the TCubeTiling's fields; the MatmulTypes as attributes
  Row& server = t.def(OpCode::MatmulServer, "matmul.server")
                    .operands({K::GmAddr})
                    .operands(kTilingFields, K::IntScalar)
                    .optional_from(0)
                    .attr_optional("id", ASC_ATTR_INT)
                    .attr_optional("fields", ASC_ATTR_STRING);
  for (const char* name :
       {"a_position", "a_format", "a_dtype", "a_trans", "b_position", "b_format", "b_dtype", "b_trans", "c_position",
        "c_format", "c_dtype", "c_trans", "bias_position", "bias_format", "bias_dtype", "bias_trans"})
    server.attr_optional(name, ASC_ATTR_INT);
  // the MatmulConfig template argument (its members' values in declaration order), and get_matmul_api_tiling's L1
  // size when the configuration is a MatmulApiStaticTiling
  server.attr_optional("config", ASC_ATTR_STRING).attr_optional("static_l1", ASC_ATTR_INT);
  // A's, B's and C's LayoutMode (MatmulType's LAYOUT), comma separated
  server.attr_optional("layouts", ASC_ATTR_STRING);
  // B a SparseMatmulType: its index matrix's TPosition plus one (0 or absent: B is a MatmulType)
  server.attr_optional("b_index_position", ASC_ATTR_INT);
  server.check(check_matmul_server).ascendc("REGIST_MATMUL_OBJ");
  // markers: the expansion they open is charged op by op
  t.def(OpCode::MatmulCall, "matmul.call")
      .operands({K::Any, K::Any, K::Any, K::Any, K::Any, K::Any})
      .optional_from(0)
      .attr("id")
      .attr("api", ASC_ATTR_STRING)
      .attr_optional("flag", ASC_ATTR_INT)
      .attr_optional("sequential", ASC_ATTR_INT)
      .attr_optional("error", ASC_ATTR_STRING)
      .check(check_matmul_call)
      .cost(CostKind::Structure)
      .hand_emitted();
  t.def(OpCode::MatmulCallEnd, "matmul.call_end").cost(CostKind::Structure).hand_emitted();
}

}  // namespace asc::rows
