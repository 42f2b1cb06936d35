// The compiler's passes in order, run on a built kernel (ir/builder.h) to make
// it executable: verify, allocate local memory, lower the framework (TPipe,
// TQue, TBuf), insert sync, merge repeated scalar computations, verify again,
// then number the ops for the per-op tables of launches.
#pragma once

#include <functional>

#include "ir/ir.h"

namespace asc {

// Sees the kernel as built ("0-built") and after each pass that changes it ("1-allocate_local",
// "2-lower_framework", "3-insert_sync", "4-common_values"); runtime/kernel_dump.h writes these stages out.
using StageObserver = std::function<void(const char* stage, const Kernel& kernel)>;

// Runs every pass on `kernel` (throws asc::Error at the first that fails). Afterwards the kernel is finished:
// Kernel::num_ops, ops, syncs_cores and memory_pipes are set.
void run_pipeline(Kernel& kernel, const StageObserver& observe = {});

}  // namespace asc
