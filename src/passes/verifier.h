// The verifier: type, position, alignment and structure rules of the IR, all
// derived from the op table.
#pragma once

#include "ir/ir.h"
#include "ir/op_check.h"

namespace asc {

// Checks the whole kernel: every op against its row (verify_op, ir/op_check.h), every operand defined before use
// in an enclosing region, regions well-formed.
void verify_kernel(const Kernel& kernel);

}  // namespace asc
