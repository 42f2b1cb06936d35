// The building calls behind asc_builder_*: each applies one call to the
// builder and records it in the builder's log. Shared by the C functions and
// by log replay, so both take exactly the same checks.
#pragma once

#include "handles.h"

namespace asc::capi {

asc_value_t builder_op(asc_builder& b, std::string_view name, const asc_value_t* operands, size_t n_operands,
                       const asc_attr_t* attrs, size_t n_attrs, const asc_loc_t* loc);
asc_value_t builder_for_begin(asc_builder& b, asc_value_t lb, asc_value_t ub, asc_value_t step, const asc_loc_t* loc);
void builder_for_end(asc_builder& b);
void builder_if_begin(asc_builder& b, asc_value_t cond, const asc_loc_t* loc);
void builder_else(asc_builder& b);
void builder_if_end(asc_builder& b);
void builder_set_option(asc_builder& b, std::string_view name, int64_t value);

}  // namespace asc::capi
