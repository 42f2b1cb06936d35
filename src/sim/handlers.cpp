// The handler table, generated from ir/ops.def: one entry per op.
#include "sim/handlers.h"

namespace asc::sim {

const ExecFn kExecTable[kOpCount] = {
#define ASC_OP(id, name) &exec_##id,
#include "ir/ops.def"
#undef ASC_OP
};

// (Too few initialisers would leave null handlers: one per op, counted.)
constexpr int kHandlerCount = 0
#define ASC_OP(id, name) +1
#include "ir/ops.def"
#undef ASC_OP
    ;
static_assert(kHandlerCount == kOpCount);

}  // namespace asc::sim
