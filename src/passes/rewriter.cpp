#include "passes/rewriter.h"

namespace asc {

Attr int_attr(int64_t v) {
  Attr a;
  a.kind = ASC_ATTR_INT;
  a.i = v;
  a.f = static_cast<double>(v);
  return a;
}

Attr string_attr(std::string s) {
  Attr a;
  a.kind = ASC_ATTR_STRING;
  a.s = std::move(s);
  return a;
}

namespace {

void collect_event_ids(const Kernel& kernel, const Region& r, std::array<uint8_t, kHardEventCount>& ids) {
  for (const auto& op : r.ops) {
    for (const auto& sub : op->regions) collect_event_ids(kernel, sub, ids);
    int64_t id;
    if ((op->code == OpCode::SetFlag || op->code == OpCode::WaitFlag) &&
        OpView{*op, kernel}.operand_const_int(0, &id) && id >= 0 && id < kMaxEventIds)
      ids[op->attr_int(0)] |= static_cast<uint8_t>(1u << id);
  }
}

}  // namespace

std::array<uint8_t, kHardEventCount> constant_event_ids(const Kernel& kernel) {
  std::array<uint8_t, kHardEventCount> ids{};
  collect_event_ids(kernel, kernel.body, ids);
  return ids;
}

Op& Rewriter::emit(OpList& out, OpCode code, std::vector<uint32_t> operands, std::vector<Attr> attrs,
                   const Location& loc, uint32_t result) {
  Type type;
  auto op = make_op(kernel_, code, std::move(operands), std::move(attrs), loc, &type);
  if (result != kNoValue) {
    if (kernel_.type_of(result) != type)
      fail(ASC_ERR_INTERNAL, loc, "{} would change the type of %{}", op->info().name, result);
    op->result = result;
    kernel_.value_def[result] = op.get();
  } else if (type.kind != TypeKind::None) {
    op->result = kernel_.new_value(type, op.get());
  }
  out.push_back(std::move(op));
  return *out.back();
}

uint32_t Rewriter::const_int(OpList& out, DType d, int64_t v, const Location& loc) {
  return value(out, OpCode::Const, {}, {int_attr(static_cast<int64_t>(d)), int_attr(v)}, loc);
}

uint32_t Rewriter::binary_const(OpList& out, OpCode code, uint32_t a, int64_t c, const Location& loc) {
  return binary(out, code, a, const_int(out, kernel_.type_of(a).dtype, c, loc), loc);
}

std::unique_ptr<Op> Rewriter::clone_shell(const Op& op, ValueMap& map) {
  std::vector<uint32_t> operands;
  operands.reserve(op.operands.size());
  for (uint32_t v : op.operands) {
    auto it = map.find(v);
    operands.push_back(it == map.end() ? v : it->second);
  }
  Type type;
  auto copy = make_op(kernel_, op.code, std::move(operands), op.attrs, op.loc, &type);
  if (op.result != kNoValue) {  // a loop's induction variable has no defining op
    copy->result = kernel_.new_value(kernel_.type_of(op.result), op.code == OpCode::For ? nullptr : copy.get());
    map[op.result] = copy->result;
  }
  return copy;
}

void Rewriter::forget(const Op& op) {
  if (op.result != kNoValue) kernel_.value_def[op.result] = nullptr;
  for (const auto& sub : op.regions)
    for (const auto& inner : sub.ops) forget(*inner);
}

uint32_t Rewriter::cast(OpList& out, uint32_t v, DType d, const Location& loc) {
  if (kernel_.type_of(v).dtype == d) return v;
  return value(out, OpCode::Cast, {v}, {int_attr(static_cast<int64_t>(d))}, loc);
}

}  // namespace asc
