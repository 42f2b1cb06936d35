#include "runtime/compile.h"

#include "passes/pipeline.h"
#include "runtime/kernel_dump.h"

namespace asc {

Kernel* compile_kernel(Module& module, std::unique_ptr<Kernel> kernel) {
  KernelDump dump(*kernel);
  run_pipeline(*kernel, [&](const char* stage, const Kernel& k) { dump.stage(stage, k); });
  dump.ascendc(*kernel);
  return module.add(std::move(kernel));
}

Kernel* compile_kernel(Module& module, Builder& builder) { return compile_kernel(module, builder.take()); }

}  // namespace asc
