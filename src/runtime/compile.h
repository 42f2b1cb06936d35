// The compile driver: a built kernel through the pass pipeline (with the
// PYASC_DUMP_PATH dumps of runtime/kernel_dump.h) into its module, where it
// stays, executable and immutable, until the module is destroyed.
#pragma once

#include <memory>

#include "ir/builder.h"
#include "ir/ir.h"

namespace asc {

// Runs the passes on `kernel` and adds it to `module`; throws asc::Error (and adds nothing) when a pass fails.
Kernel* compile_kernel(Module& module, std::unique_ptr<Kernel> kernel);
// The builder's kernel (Builder::take: every region must be closed), compiled into `module`.
Kernel* compile_kernel(Module& module, Builder& builder);

}  // namespace asc
