// Lowers TPipe/TQue/TBuf ops to local tensors, scalar bookkeeping and the
// set_flag/wait_flag pairs the Ascend C framework implies.
#pragma once

#include "ir/ir.h"

namespace asc {

// `ub_start`: first Unified Buffer byte the pipe may hand out (the local
// allocator's high-water mark).
void lower_framework(Kernel& kernel, int64_t ub_start);

}  // namespace asc
