// Compiling a kernel for the NPU: the emitter's Ascend C, built by the CANN
// compiler (bisheng) for the platform's AI Core architecture and the kernel's
// core type, into an object file ACL can load. Objects are cached on disk by
// their source and flags, so a kernel is compiled once per machine.
#pragma once

#include <string>
#include <vector>

#include "ir/ir.h"
#include "target/platform.h"

namespace asc::acl {

// Where CANN's compiler and the Ascend C headers are, from $ASCEND_HOME_PATH
// (laid out as CANN installs them: <devkit>/ccec_compiler/bin/bisheng with
// <devkit> one of x86_64-linux / aarch64-linux, tools, compiler,
// ascendc_devkit). Throws ASC_ERR_BACKEND_UNAVAILABLE saying what to install
// or set when there is none.
struct Toolkit {
  std::string bisheng;
  std::string devkit;
};
Toolkit find_toolkit();

// bisheng's arguments for a kernel of `type` on `platform`, without the input and output files.
std::vector<std::string> npu_compile_flags(const Toolkit& toolkit, const Platform& platform, KernelType type);

// The object file of the kernel (absolute path), compiled now or found in the
// cache ($PYASC_CACHE_DIR/npu, else ~/.cache/asc/npu). Throws
// ASC_ERR_UNSUPPORTED for an op the emitter cannot spell, ASC_ERR_RUNTIME
// with the compiler's messages when bisheng fails.
std::string compile_for_npu(const Kernel& kernel, const Platform& platform);

}  // namespace asc::acl
