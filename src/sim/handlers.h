// One execution handler per IR op (see ir/ops.def). Scalar-unit ops write
// their result to *out; pipe ops get the operands captured at issue time.
#pragma once

#include "sim/block.h"

namespace asc::sim {

using ExecFn = void (*)(Block& b, const Op& op, const RtValue* in, RtValue* out);

#define ASC_OP(id, name) void exec_##id(Block& b, const Op& op, const RtValue* in, RtValue* out);
#include "ir/ops.def"
#undef ASC_OP

ExecFn exec_fn(OpCode code);

// The vector instructions' shared engine (vector_ops.cpp).
void run_vector(Block& b, const Op& op, const RtValue* in);
// The 128-bit element mask of a vector op in mask mode; `base` is the index
// of its first mask operand.
void vector_mask(const Op& op, const RtValue* in, size_t base, uint64_t mask[2]);

}  // namespace asc::sim
