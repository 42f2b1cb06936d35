// Common-subexpression elimination: the index arithmetic a kernel's source repeats (`buf_id * tile_length` on
// every line of a loop body that slices a buffer) computed once, as the board's compiler does at -O2.
#pragma once

#include "ir/ir.h"

namespace asc {

// Moves every constant to the start of the kernel (a loop body's literals are made once, not per iteration), then
// replaces each pure op (OpInfo::pure) by an earlier identical one that dominates it: the same code, operands and
// attributes, earlier in the same region or in one enclosing it. An op reading a `var` (which `assign` changes)
// is never merged.
void merge_common_values(Kernel& kernel);

}  // namespace asc
