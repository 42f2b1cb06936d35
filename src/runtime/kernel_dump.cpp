#include "runtime/kernel_dump.h"

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <mutex>

#include "codegen/ascendc_emitter.h"
#include "ir/printer.h"
#include "support/error.h"

namespace asc {

namespace {

// The kernel's name as a file name: a name from the C ABI may hold any bytes ('/', "..", NUL), and the dump must
// stay inside the directory.
std::string file_name(const std::string& name) {
  std::string out;
  for (char c : name) out += std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' ? c : '_';
  return out.empty() ? "kernel" : out;
}

}  // namespace

KernelDump::KernelDump(const Kernel& kernel) {
  const char* dir = std::getenv("PYASC_DUMP_PATH");
  if (!dir || !*dir) return;
  static std::mutex mutex;
  static std::map<std::string, int> finished;  // per kernel name, so that specialisations do not overwrite
  std::string name = file_name(kernel.name);
  int n;
  {
    std::lock_guard<std::mutex> lock(mutex);
    n = finished[name]++;
  }
  prefix_ = std::string(dir) + "/" + name + "-" + std::to_string(n);
}

void KernelDump::stage(const char* stage, const Kernel& kernel) const {
  if (!prefix_.empty()) write(prefix_ + "." + stage + ".ir", print_kernel(kernel));
}

void KernelDump::ascendc(const Kernel& kernel) const {
  if (prefix_.empty()) return;
  std::string text;
  try {
    text = emit_ascendc(kernel);
  } catch (const Error& e) {  // the kernel still runs on the Model: the dump says what is missing
    std::string why = fmt::format("{}: {}", e.loc().str(), e.what());
    for (char& c : why)
      if (c == '"' || c == '\\' || c == '\n') c = '\'';
    text = fmt::format("#error \"{}\"\n", why);
  }
  write(prefix_ + ".ascendc.cpp", text);
}

void KernelDump::write(const std::string& path, const std::string& text) const {
  std::ofstream out(path);
  out << text;
  out.close();
  if (!out)  // asked for explicitly: a dump that cannot be written is an error, not a silent gap
    fail(ASC_ERR_INVALID_ARGUMENT, "PYASC_DUMP_PATH: cannot write {} ({}); create the directory or unset it", path,
         std::strerror(errno));
}

}  // namespace asc
