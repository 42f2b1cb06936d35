// Rows of the adv library's markers. An adv function (asc.adv.softmax, asc.adv.sin, ...) is library code over the
// basic instructions on the board as here: the front end builds its expansion between adv.call and adv.call_end,
// so the Model runs, checks and prices the real instruction sequence, and the Ascend C emitter writes the library
// call itself (AscendC::SoftMax, AscendC::Sin, ...) in place of the expansion, so that the board runs Huawei's
// implementation. The CPU proof compiles the expansion instead (emit_ascendc_expanded).
#include "ir/adv_call.h"
#include "ir/op_rows.h"
#include "ir/row_rules.h"

namespace asc::rows {
namespace {

// The most operands an adv call passes on (tensors, counts and the fields of a tiling struct).
constexpr size_t kMaxAdvOperands = 96;

// `call` is the Ascend C statement (ir/adv_call.h): each placeholder must name an operand the op has.
void check_adv_call(const OpView& v) {
  const std::string& call = v.op.attr(0).s;
  if (call.rfind("AscendC::", 0) != 0) type_error(v, "the call must be an AscendC:: function");
  std::string text, error;
  if (!expand_adv_call(
          call, v.op.operands.size(), [](size_t, bool) { return std::string(); }, &text, &error))
    type_error(v, error);
}

void check_adv_require(const OpView& v) {
  if (v.operand_type(0).dtype != DType::Bool) type_error(v, "the condition must be a bool scalar");
}

Type stack_buffer_result(const OpView&) { return Type::local_tensor(DType::UInt8, Position::VecCalc); }

}  // namespace

void define_adv_ops(OpTable& t) {
  // markers: the expansion between them is charged op by op
  t.def(OpCode::AdvCall, "adv.call")
      .operands(kMaxAdvOperands, K::Any)
      .optional_from(0)
      .attr("call", ASC_ATTR_STRING)
      .check(check_adv_call)
      .cost(CostKind::Structure)
      .hand_emitted();
  t.def(OpCode::AdvCallEnd, "adv.call_end").cost(CostKind::Structure).hand_emitted();
  // A precondition of the library function (a temporary buffer large enough, a shape it supports): false is a
  // run-time error with `message`, at the user's call.
  t.def(OpCode::AdvRequire, "adv.require")
      .operands({K::AnyScalar})
      .attr("message", ASC_ATTR_STRING)
      .check(check_adv_require)
      .cost(CostKind::Structure)
      .hand_emitted();
  // The framework's temporary buffer (Ascend C PopStackBuffer): the Unified Buffer from the first byte no TPipe
  // or static allocation has handed out (operand 0, filled in by lower_framework) to its end.
  t.def(OpCode::StackBuffer, "stack_buffer")
      .operands({K::IntScalar})
      .optional_from(0)
      .result(stack_buffer_result)
      .cost(CostKind::Structure)
      .hand_emitted();
}

}  // namespace asc::rows
