// The NPU backend's device: ACL (loaded at run time, acl_api.h) runs the
// kernels through acl::Launcher.
#include <memory>

#include "runtime/acl/acl_api.h"
#include "runtime/acl/acl_launcher.h"
#include "runtime/device.h"
#include "support/error.h"

namespace asc {

namespace {

class NpuDevice : public Device {
 public:
  NpuDevice(const Platform& platform, int32_t device_id)
      : Device(platform), device_id_(device_id), launcher_(acl::api(), device_id) {}

  sim::LaunchReport launch(const Kernel& kernel, uint32_t, const asc_arg_t*, size_t,
                           const sim::LaunchOptions&) override {
    // The launcher is ready (acl_launcher.h); what it runs, an Ascend C binary of the kernel, needs the emitter and
    // the bisheng step, which this build does not have yet.
    fail(ASC_ERR_UNSUPPORTED,
         "kernel '{}': this build of libasc cannot yet generate Ascend C for the NPU ({} device {}); use "
         "Backend.Model",
         kernel.name, platform().name, device_id_);
  }

 private:
  int32_t device_id_;
  acl::Launcher launcher_;
};

}  // namespace

std::unique_ptr<Device> make_npu_device(const Platform& platform, int32_t device_id) {
  return std::make_unique<NpuDevice>(platform, device_id);
}

}  // namespace asc
