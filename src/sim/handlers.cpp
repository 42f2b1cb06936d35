// The handler table, generated from ir/ops.def: one entry per op.
#include "sim/handlers.h"

namespace asc::sim {

namespace {
constexpr ExecFn kExec[] = {
#define ASC_OP(id, name) &exec_##id,
#include "ir/ops.def"
#undef ASC_OP
};
static_assert(sizeof(kExec) / sizeof(kExec[0]) == kOpCount);
}  // namespace

ExecFn exec_fn(OpCode code) { return kExec[static_cast<size_t>(code)]; }

}  // namespace asc::sim
