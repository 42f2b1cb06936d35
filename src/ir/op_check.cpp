#include "ir/op_check.h"

namespace asc {

Type verify_op(const Kernel& kernel, const Op& op) {
  const OpInfo& info = op.info();
  size_t n = op.operands.size();
  if (n < info.min_operands || n > info.operands.size()) {
    if (info.min_operands == info.operands.size())
      fail(ASC_ERR_TYPE, op.loc, "{} takes {} operand(s), got {}", info.name, info.operands.size(), n);
    fail(ASC_ERR_TYPE, op.loc, "{} takes {} to {} operands, got {}", info.name, info.min_operands, info.operands.size(),
         n);
  }
  for (size_t i = 0; i < n; ++i) {
    uint32_t v = op.operands[i];
    if (v >= kernel.value_types.size())
      fail(ASC_ERR_INVALID_ARGUMENT, op.loc, "{}: operand {} is not a value", info.name, i);
    const Type& t = kernel.type_of(v);
    if (!operand_kind_accepts(info.operands[i], t))
      fail(ASC_ERR_TYPE, op.loc, "{}: operand {} must be {}, got {}", info.name, i, operand_kind_name(info.operands[i]),
           t.str());
  }
  if (op.attrs.size() != info.attrs.size()) fail(ASC_ERR_INTERNAL, op.loc, "{}: attributes not normalised", info.name);
  for (size_t i = 0; i < info.attrs.size(); ++i) {
    const AttrSpec& spec = info.attrs[i];
    asc_attr_kind_t k = op.attrs[i].kind;
    bool ok = k == spec.kind || (spec.kind == ASC_ATTR_FLOAT && k == ASC_ATTR_INT);
    if (!ok) fail(ASC_ERR_TYPE, op.loc, "{}: attribute '{}' has the wrong kind", info.name, spec.name);
  }
  if (op.regions.size() != static_cast<size_t>(info.regions))
    fail(ASC_ERR_VERIFY, op.loc, "{}: expected {} region(s)", info.name, info.regions);
  OpView view{op, kernel};
  if (info.check) info.check(view);
  return info.result(view);
}

std::unique_ptr<Op> make_op(const Kernel& kernel, OpCode code, std::vector<uint32_t> operands, std::vector<Attr> attrs,
                            const Location& loc, Type* result_type) {
  auto op = std::make_unique<Op>();
  op->code = code;
  op->operands = std::move(operands);
  op->attrs = std::move(attrs);
  op->loc = loc;
  op->regions.resize(op->info().regions);
  *result_type = verify_op(kernel, *op);
  return op;
}

}  // namespace asc
