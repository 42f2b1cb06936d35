#include "build_calls.h"

#include <vector>

namespace asc::capi {
namespace {

Location to_location(Builder& b, const asc_loc_t* loc) {
  if (!loc) return {};
  return b.location(text(loc->file, loc->file_len, "loc->file").data(), loc->file_len, loc->line, loc->col);
}

std::vector<AttrInput> to_attrs(const asc_attr_t* attrs, size_t n) {
  if (n && !attrs) fail(ASC_ERR_INVALID_ARGUMENT, "attrs is null");
  std::vector<AttrInput> out;
  for (size_t i = 0; i < n; ++i) {
    const asc_attr_t& a = attrs[i];
    AttrInput in{text(a.name, a.name_len, "attribute name"), {}};
    if (a.kind > ASC_ATTR_STRING) fail(ASC_ERR_INVALID_ARGUMENT, "attribute '{}' has unknown kind {}", in.name, a.kind);
    in.value.kind = static_cast<asc_attr_kind_t>(a.kind);
    in.value.i = a.i;
    in.value.f = a.f;
    if (a.kind == ASC_ATTR_STRING) in.value.s = std::string(text(a.s, a.s_len, "attribute string"));
    out.push_back(std::move(in));
  }
  return out;
}

}  // namespace

asc_value_t builder_op(asc_builder& b, std::string_view name, const asc_value_t* operands, size_t n_operands,
                       const asc_attr_t* attrs, size_t n_attrs, const asc_loc_t* loc) {
  if (n_operands && !operands) fail(ASC_ERR_INVALID_ARGUMENT, "operands is null");
  std::vector<uint32_t> ops(operands, operands + n_operands);
  uint32_t r = b.builder->add_op(name, ops, to_attrs(attrs, n_attrs), to_location(*b.builder, loc));
  b.log.op(name, operands, n_operands, attrs, n_attrs, loc);
  return r;
}

asc_value_t builder_for_begin(asc_builder& b, asc_value_t lb, asc_value_t ub, asc_value_t step, const asc_loc_t* loc) {
  uint32_t iv = b.builder->for_begin(lb, ub, step, to_location(*b.builder, loc));
  b.log.for_begin(lb, ub, step, loc);
  return iv;
}

void builder_for_end(asc_builder& b) {
  b.builder->for_end();
  b.log.mark(kLogForEnd);
}

void builder_if_begin(asc_builder& b, asc_value_t cond, const asc_loc_t* loc) {
  b.builder->if_begin(cond, to_location(*b.builder, loc));
  b.log.if_begin(cond, loc);
}

void builder_else(asc_builder& b) {
  b.builder->else_begin();
  b.log.mark(kLogElse);
}

void builder_if_end(asc_builder& b) {
  b.builder->if_end();
  b.log.mark(kLogIfEnd);
}

void builder_set_option(asc_builder& b, std::string_view name, int64_t value) {
  b.builder->set_option(name, value);
  b.log.set_option(name, value);
}

}  // namespace asc::capi
