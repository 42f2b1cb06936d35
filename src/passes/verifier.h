// The verifier: type, position, alignment and structure rules of the IR, all
// derived from the op table.
#pragma once

#include "ir/ir.h"

namespace asc {

// Checks one op against its op-table row (operand count and kinds, attribute
// kinds, the row's check function) and returns its result type.
Type verify_op(const Kernel& kernel, const Op& op);

// Checks the whole kernel: every op as above, every operand defined before use
// in an enclosing region, regions well-formed.
void verify_kernel(const Kernel& kernel);

}  // namespace asc
