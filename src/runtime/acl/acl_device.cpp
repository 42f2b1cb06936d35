// The NPU backend's device: each kernel is emitted as Ascend C and compiled by
// bisheng (npu_compiler.h), and ACL (loaded at run time, acl_api.h) runs it
// through acl::Launcher.
#include <memory>

#include "runtime/acl/acl_api.h"
#include "runtime/acl/acl_launcher.h"
#include "runtime/acl/npu_compiler.h"
#include "runtime/device.h"
#include "support/error.h"

namespace asc {

namespace {

class NpuDevice : public Device {
 public:
  NpuDevice(const Platform& platform, int32_t device_id) : Device(platform), launcher_(acl::api(), device_id) {}

 protected:
  bool takes_device_memory() const override { return true; }  // host or NPU memory for a GM parameter

  LaunchReport run(const Kernel& kernel, uint32_t block_dim, const asc_arg_t* args, size_t n_args,
                   const LaunchOptions&) override {
    std::string object = acl::compile_for_npu(kernel, platform());
    launcher_.launch({object, kernel.name}, block_dim, args, n_args);
    return {};  // the NPU reports no timing, warnings or printed text through this path
  }

 private:
  acl::Launcher launcher_;
};

}  // namespace

std::unique_ptr<Device> make_npu_device(const Platform& platform, int32_t device_id) {
  return std::make_unique<NpuDevice>(platform, device_id);
}

}  // namespace asc
