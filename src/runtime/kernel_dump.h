// PYASC_DUMP_PATH: when set to a directory, every kernel that is finished
// leaves its IR there as it was built and after each pass, one file per stage
// (<kernel>-<n>.<stage>.ir, n counting the kernels of that name this process
// finished), for reading what the compiler did to it; and the Ascend C the
// emitter makes of the finished kernel (<kernel>-<n>.ascendc.cpp), or, for a
// kernel it cannot spell yet, a file whose #error says why.
#pragma once

#include <string>

#include "ir/ir.h"

namespace asc {

class KernelDump {
 public:
  explicit KernelDump(const Kernel& kernel);  // does nothing when PYASC_DUMP_PATH is unset or empty
  // Writes the kernel's IR now, as stage `stage` (e.g. "0-built", "3-insert_sync").
  void stage(const char* stage, const Kernel& kernel) const;
  // Writes the Ascend C source of the finished kernel.
  void ascendc(const Kernel& kernel) const;

 private:
  void write(const std::string& path, const std::string& text) const;
  std::string prefix_;  // <dir>/<kernel>-<n>, or empty: no dump
};

}  // namespace asc
