#include "runtime/acl/npu_compiler.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "codegen/ascendc_emitter.h"
#include "support/error.h"

extern char** environ;

namespace asc::acl {
namespace fs = std::filesystem;

namespace {

bool is_executable(const fs::path& p) { return ::access(p.c_str(), X_OK) == 0 && fs::is_regular_file(p); }

// The AI Core architecture bisheng targets: Atlas A2/A3 (Ascend910B, Ascend910_93) are dav-c220 and Ascend 950
// (Ascend910_95, Ascend950PR) dav-c310 (Platform::arch), whose vector and cube cores are compiled separately (-vec,
// -cube) unless the kernel mixes them (as PyAsc2's CompilationTarget does for both).
std::string aicore_arch(const Platform& platform, KernelType type) {
  std::string arch = std::string("dav-") + arch_name(platform.arch);
  switch (type) {
    case KernelType::AivOnly: return arch + "-vec";
    case KernelType::AicOnly: return arch + "-cube";
    default: return arch;
  }
}

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

void write_file(const fs::path& p, const std::string& text) {
  std::ofstream out(p, std::ios::binary);
  out << text;
  out.close();
  if (!out) fail(ASC_ERR_RUNTIME, "Backend.NPU: cannot write {}", p.string());
}

// FNV-1a: the cache entry's name. An entry is used only if its stored source and flags are the same text, so a
// collision costs a recompile, never a wrong binary.
uint64_t fnv1a(const std::string& text) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : text) h = (h ^ c) * 1099511628211ull;
  return h;
}

fs::path cache_root() {
  if (const char* dir = std::getenv("PYASC_CACHE_DIR"); dir && *dir) return fs::path(dir) / "npu";
  if (const char* home = std::getenv("HOME"); home && *home) return fs::path(home) / ".cache" / "asc" / "npu";
  return fs::temp_directory_path() / "asc-npu-cache";
}

// Runs the compiler with its output (stdout and stderr) going to `log`; returns its exit status.
int run(const std::vector<std::string>& argv, const fs::path& log) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid;
  int err = posix_spawn(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (err) fail(ASC_ERR_RUNTIME, "Backend.NPU: cannot run {}: {}", argv[0], std::strerror(err));
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

}  // namespace

Toolkit find_toolkit() {
  const char* home = std::getenv("ASCEND_HOME_PATH");
  if (!home || !*home)
    fail(ASC_ERR_BACKEND_UNAVAILABLE,
         "Backend.NPU compiles kernels with the CANN toolkit's bisheng, and ASCEND_HOME_PATH is not set: install "
         "CANN (8.0 or newer) and `source <CANN>/set_env.sh`, or use Backend.Model");
  struct utsname u {};
  uname(&u);
  std::string machine = std::string(u.machine) + "-linux";
  for (const char* sub : {machine.c_str(), "tools", "compiler", "ascendc_devkit"}) {
    fs::path devkit = fs::path(home) / sub;
    fs::path bisheng = devkit / "ccec_compiler" / "bin" / "bisheng";
    if (is_executable(bisheng)) return {bisheng.string(), devkit.string()};
  }
  fail(ASC_ERR_BACKEND_UNAVAILABLE,
       "Backend.NPU: no bisheng under ASCEND_HOME_PATH={} (looked for <{}|tools|compiler|ascendc_devkit>/ccec_compiler/"
       "bin/bisheng); install the CANN toolkit there or point ASCEND_HOME_PATH at it",
       home, machine);
}

std::vector<std::string> npu_compile_flags(const Toolkit& toolkit, const Platform& platform, KernelType type) {
  std::vector<std::string> flags = {"-c", "-O3", "-std=c++17", "--cce-aicore-lang",
                                    "--cce-aicore-arch=" + aicore_arch(platform, type)};
  if (type == KernelType::AivOnly || type == KernelType::AicOnly) flags.push_back("--cce-aicore-only");
  // No --cce-auto-sync: the kernel already carries every flag the sync inserter placed.
  for (const char* dir : {"asc", "asc/include", "asc/include/basic_api", "asc/include/utils", "asc/impl/basic_api",
                          "asc/impl/utils", "tikcpp/tikcfw", "tikcpp/tikcfw/interface", "tikcpp/tikcfw/impl"})
    flags.push_back("-I" + (fs::path(toolkit.devkit) / dir).string());
  return flags;
}

std::string compile_for_npu(const Kernel& kernel, const Platform& platform) {
  std::string source = emit_ascendc(kernel);
  Toolkit toolkit = find_toolkit();
  std::vector<std::string> flags = npu_compile_flags(toolkit, platform, kernel.options.kernel_type);
  std::string flag_text = toolkit.bisheng;
  for (const std::string& f : flags) flag_text += "\n" + f;

  fs::path dir = cache_root() / fmt::format("{:016x}", fnv1a(flag_text + '\0' + source));
  fs::path object = dir / "kernel.o";
  if (fs::exists(object) && read_file(dir / "kernel.cpp") == source && read_file(dir / "flags.txt") == flag_text)
    return fs::absolute(object).string();

  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) fail(ASC_ERR_RUNTIME, "Backend.NPU: cannot create the kernel cache {}: {}", dir.string(), ec.message());
  write_file(dir / "kernel.cpp", source);
  write_file(dir / "flags.txt", flag_text);
  // Written under a name of this process's and renamed: another process may compile the same kernel at once.
  fs::path partial = dir / fmt::format("kernel.o.{}", ::getpid());
  fs::path log = dir / "bisheng.log";
  std::vector<std::string> argv{toolkit.bisheng};
  argv.insert(argv.end(), flags.begin(), flags.end());
  argv.insert(argv.end(), {(dir / "kernel.cpp").string(), "-o", partial.string()});
  int status = run(argv, log);
  if (status != 0 || !fs::exists(partial)) {
    std::string messages = read_file(log);
    if (messages.size() > 4000) messages = "..." + messages.substr(messages.size() - 4000);
    fail(ASC_ERR_RUNTIME, "Backend.NPU: bisheng failed (exit {}) compiling kernel '{}' ({}):\n{}", status, kernel.name,
         (dir / "kernel.cpp").string(), messages);
  }
  fs::rename(partial, object, ec);
  if (ec) fail(ASC_ERR_RUNTIME, "Backend.NPU: cannot store {}: {}", object.string(), ec.message());
  return fs::absolute(object).string();
}

}  // namespace asc::acl
