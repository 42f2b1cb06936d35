// The NPU backend's device: each kernel is emitted as Ascend C and compiled by
// bisheng (npu_compiler.h), and ACL (loaded at run time, acl_api.h) runs it
// through acl::Launcher. A compiler given to the device (asc_device_set_npu_compiler: the Python package's
// asc.runtime.compiler.Compiler) builds the object instead, once per kernel. Its device memory
// (asc_device_malloc ...) is ACL's (acl_memory.h).
#include <memory>
#include <mutex>
#include <string>
#include <utility>

#include "runtime/acl/acl_api.h"
#include "runtime/acl/acl_launcher.h"
#include "runtime/acl/acl_memory.h"
#include "runtime/acl/npu_compiler.h"
#include "runtime/device.h"
#include "support/error.h"

namespace asc {

namespace {

class NpuDevice : public Device {
 public:
  NpuDevice(const Platform& platform, int32_t device_id)
      : Device(platform), api_(acl::api()), launcher_(api_, device_id) {}

  void* allocate_memory(uint64_t size, uint32_t policy) override { return acl::allocate(api_, size, policy); }
  void free_memory(void* ptr) override { acl::release(api_, ptr); }
  void copy_memory(void* dst, uint64_t dst_max, const void* src, uint64_t count, uint32_t kind) override {
    acl::copy(api_, dst, dst_max, src, count, kind);
  }
  void* load_binary(const void* data, size_t len) override { return launcher_.load_binary(data, len); }
  void* binary_function(void* binary, const std::string& name) override {
    return launcher_.binary_function(binary, name);
  }
  void unload_binary(void* binary) override { launcher_.unload_binary(binary); }
  void launch_function(void* function, uint32_t block_dim, const asc_arg_t* args, size_t n_args) override {
    launcher_.launch_function(function, block_dim, args, n_args);
  }

 protected:
  bool takes_device_memory() const override { return true; }  // host or NPU memory for a GM parameter

  bool set_npu_compiler(NpuCompiler compiler) override {
    std::lock_guard lock(compiler_mutex_);
    compiler_ = std::move(compiler);
    return true;
  }

  LaunchReport run(const Kernel& kernel, uint32_t block_dim, const asc_arg_t* args, size_t n_args,
                   const LaunchOptions&) override {
    launcher_.launch({object_of(kernel), kernel.name}, block_dim, args, n_args);
    return {};  // the NPU reports no timing, warnings or printed text through this path
  }

 private:
  // The kernel's object file: from the device's compiler (once per kernel; a failed build is tried again at the
  // next launch), else libasc's own build (cached on disk by source and flags).
  std::string object_of(const Kernel& kernel) {
    NpuCompiler compiler;
    {
      std::lock_guard lock(compiler_mutex_);
      compiler = compiler_;
    }
    if (!compiler) return acl::compile_for_npu(kernel, platform());
    std::lock_guard lock(kernel.npu_mutex);
    std::string& built = kernel.npu_objects[platform().name];  // one binary per SoC the kernel ran on
    if (built.empty()) {
      std::string object = compiler(kernel);
      if (object.empty())
        fail(ASC_ERR_RUNTIME, "Backend.NPU: the device's compiler gave no object file for kernel '{}'", kernel.name);
      built = std::move(object);
    }
    return built;
  }

  const acl::Api& api_;
  acl::Launcher launcher_;
  std::mutex compiler_mutex_;
  NpuCompiler compiler_;
};

}  // namespace

std::unique_ptr<Device> make_npu_device(const Platform& platform, int32_t device_id) {
  return std::make_unique<NpuDevice>(platform, device_id);
}

}  // namespace asc
