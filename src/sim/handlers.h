// One execution handler per IR op (see ir/ops.def). Scalar-unit ops write
// their result to *out; pipe ops get the operands captured at issue time.
#pragma once

#include "sim/block.h"

namespace asc::sim {

using ExecFn = void (*)(Block& b, const Op& op, const RtValue* in, RtValue* out);

#define ASC_OP(id, name) void exec_##id(Block& b, const Op& op, const RtValue* in, RtValue* out);
#include "ir/ops.def"
#undef ASC_OP

// The handler table, one entry per op in ops.def order (handlers.cpp). (Inline: looked up for every op run.)
extern const ExecFn kExecTable[kOpCount];
inline ExecFn exec_fn(OpCode code) { return kExecTable[static_cast<size_t>(code)]; }

// The vector instructions' shared engine (vector_ops.cpp).
void run_vector(Block& b, const Op& op, const RtValue* in);

}  // namespace asc::sim
