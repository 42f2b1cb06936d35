// What the op table's family files share: the verifier rules several rows use
// and the result-type rules. Internal to src/ir.
#pragma once

#include <string>

#include "ir/ir.h"

namespace asc::rows {

[[noreturn]] void type_error(const OpView& v, const std::string& msg);
void require_same_dtype(const OpView& v, size_t a, size_t b);
// Operand i is a LocalTensor in the Unified Buffer (VECIN, VECOUT or VECCALC).
void require_ub_position(const OpView& v, size_t i, const char* role);
// Operand i is a LocalTensor in memory m (`positions` names its TPositions for the message).
void require_position(const OpView& v, size_t i, Memory m, const char* role, const char* positions);
// Operand i's dtype is in the row's dtype set.
void require_row_dtype(const OpView& v, size_t i);
// dst and src in the Unified Buffer with one dtype, in the row's set.
void check_ub_same_dtype(const OpView& v);
void check_mask_mode(const OpView& v);
void check_dtype_attr(const OpView& v);

Type no_result(const OpView&);
Type same_as_operand0(const OpView& v);
Type bool_result(const OpView&);
Type int32_result(const OpView&);
Type int64_result(const OpView&);
Type uint64_result(const OpView&);
Type dtype_attr_scalar(const OpView& v);    // a scalar of attribute 0's dtype
Type tensor_dtype_scalar(const OpView& v);  // a scalar of operand 0's dtype

inline int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

}  // namespace asc::rows
