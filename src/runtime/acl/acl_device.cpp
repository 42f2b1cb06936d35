// The NPU backend's entry: the Ascend runtime is loaded with dlopen at run
// time, so libasc.so has no link-time dependency on CANN.
#include <dlfcn.h>

#include <cstdlib>
#include <string>

#include "runtime/device.h"

namespace asc {

std::unique_ptr<Device> make_npu_device(const Platform& platform, int32_t device_id) {
  void* acl = dlopen("libascendcl.so", RTLD_NOW | RTLD_LOCAL);
  if (!acl) {
    const char* why = dlerror();
    const char* home = std::getenv("ASCEND_HOME_PATH");
    fail(ASC_ERR_BACKEND_UNAVAILABLE,
         "Backend.NPU needs the Ascend runtime, but libascendcl.so could not be loaded ({}). {}; install CANN and "
         "run its set_env.sh, or use Backend.Model, which needs nothing else",
         why ? why : "not found",
         home ? "ASCEND_HOME_PATH is " + std::string(home) : std::string("ASCEND_HOME_PATH is not set"));
  }
  dlclose(acl);
  fail(ASC_ERR_UNSUPPORTED,
       "CANN was found, but this build of libasc cannot yet compile kernels for the NPU ({} device {}); use "
       "Backend.Model",
       platform.name, device_id);
}

}  // namespace asc
