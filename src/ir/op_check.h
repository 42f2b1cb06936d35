// One op against its op-table row: operand count and kinds, attribute kinds,
// regions, the row's own check, and the result type its rule gives. The
// builder checks every op as it is added, passes every op they make, and the
// verifier (passes/verifier.h) every op of a whole kernel.
#pragma once

#include <memory>
#include <vector>

#include "ir/ir.h"

namespace asc {

// The op's result type (TypeKind::None for ops without a result); throws asc::Error when the op breaks its row.
Type verify_op(const Kernel& kernel, const Op& op);

// A new op, checked by verify_op; `result` is not assigned yet.
std::unique_ptr<Op> make_op(const Kernel& kernel, OpCode code, std::vector<uint32_t> operands, std::vector<Attr> attrs,
                            const Location& loc, Type* result_type);

}  // namespace asc
