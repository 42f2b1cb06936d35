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

// What the Model's launch checks too: one argument per parameter, a buffer (host or NPU memory) for each GM
// parameter and a scalar of the parameter's dtype for each scalar one.
void check_arguments(const Kernel& kernel, const asc_arg_t* args, size_t n_args) {
  if (n_args != kernel.num_params)
    fail(ASC_ERR_TYPE, "kernel '{}' takes {} argument(s), got {}", kernel.name, kernel.num_params, n_args);
  if (n_args && !args) fail(ASC_ERR_INVALID_ARGUMENT, "args is null");
  for (size_t i = 0; i < n_args; ++i) {
    const Type& t = kernel.type_of(static_cast<uint32_t>(i));
    bool buffer = args[i].kind == ASC_ARG_BUFFER || args[i].kind == ASC_ARG_DEVICE_BUFFER;
    if (t.is_scalar() ? args[i].kind != ASC_ARG_SCALAR : !buffer)
      fail(ASC_ERR_TYPE, "argument {} of '{}' must be {}", i, kernel.name, t.is_scalar() ? "a scalar" : "a buffer");
    if (args[i].dtype != static_cast<uint32_t>(t.dtype))
      fail(ASC_ERR_TYPE, "argument {} of '{}' must have dtype {}", i, kernel.name, dtype_name(t.dtype));
    if (buffer && !args[i].ptr && args[i].size)
      fail(ASC_ERR_INVALID_ARGUMENT, "argument {} of '{}' is a null buffer of {} bytes", i, kernel.name, args[i].size);
  }
}

class NpuDevice : public Device {
 public:
  NpuDevice(const Platform& platform, int32_t device_id) : Device(platform), launcher_(acl::api(), device_id) {}

  sim::LaunchReport launch(const Kernel& kernel, uint32_t block_dim, const asc_arg_t* args, size_t n_args,
                           const sim::LaunchOptions&) override {
    check_arguments(kernel, args, n_args);
    if (block_dim == 0) fail(ASC_ERR_INVALID_ARGUMENT, "kernel '{}': block_dim must be at least 1", kernel.name);
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
