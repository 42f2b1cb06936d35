#include "runtime/acl/acl_api.h"

#include <dlfcn.h>

#include <cstdlib>
#include <mutex>

#include "support/error.h"

namespace asc::acl {

namespace {

std::string install_hint() {
  const char* home = std::getenv("ASCEND_HOME_PATH");
  return home ? "ASCEND_HOME_PATH is " + std::string(home) + "; run its set_env.sh so that the loader finds it"
              : std::string("ASCEND_HOME_PATH is not set: install CANN (the Ascend toolkit) and run its set_env.sh");
}

}  // namespace

Api load_api(const std::string& path) {
  Api a;
  a.path = path;
  void* lib = dlopen(a.path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    const char* why = dlerror();
    fail(ASC_ERR_BACKEND_UNAVAILABLE,
         "Backend.NPU needs the Ascend runtime, but {} could not be loaded ({}). {}; or use Backend.Model, which needs "
         "nothing else",
         a.path, why ? why : "not found", install_hint());
  }
  // Kept loaded for the life of the process: ACL does not support being unloaded and loaded again.
#define ASC_ACL_RESOLVE(name, type)                                                   \
  a.name = reinterpret_cast<Api::name##_fn>(dlsym(lib, #name));                       \
  if (!a.name)                                                                        \
    fail(ASC_ERR_BACKEND_UNAVAILABLE,                                                 \
         "{} has no function {}: this CANN is too old for asc (it needs CANN 8.0 or " \
         "newer)",                                                                    \
         a.path, #name);
  ASC_ACL_FUNCTIONS(ASC_ACL_RESOLVE)
#undef ASC_ACL_RESOLVE
#define ASC_ACL_RESOLVE_OPTIONAL(name, type) a.name = reinterpret_cast<Api::name##_fn>(dlsym(lib, #name));
  ASC_ACL_OPTIONAL_FUNCTIONS(ASC_ACL_RESOLVE_OPTIONAL)
#undef ASC_ACL_RESOLVE_OPTIONAL
  return a;
}

const Api& api() {
  // Loaded once; a failure is not remembered, so installing CANN (or fixing the path) and retrying works.
  static std::mutex mutex;
  static std::unique_ptr<Api> loaded;
  std::lock_guard<std::mutex> lock(mutex);
  const char* env = std::getenv("ASC_ACL_LIBRARY");
  if (!loaded) loaded = std::make_unique<Api>(load_api(env && *env ? env : "libascendcl.so"));
  return *loaded;
}

const Api& api_for(const char* call) {
  try {
    return api();
  } catch (const asc::Error& e) {  // (acl::Error is ACL's error code)
    fail(e.status(), "{}: {}", call, e.what());
  }
}

void missing_function(const Api& a, const char* name, const char* call) {
  fail(ASC_ERR_BACKEND_UNAVAILABLE,
       "{}: {} has no function {}: this CANN is too old for it; install a newer CANN (the Ascend toolkit) and run its "
       "set_env.sh",
       call, a.path, name);
}

void check(const Api& a, Error error, const char* call) {
  if (error == 0) return;
  const char* message = a.aclGetRecentErrMsg ? a.aclGetRecentErrMsg() : nullptr;
  fail(ASC_ERR_RUNTIME, "{} failed with ACL error {}{}{}", call, error, message && *message ? ": " : "",
       message ? message : "");
}

}  // namespace asc::acl
