// A device runs kernels: the Model simulator or an NPU through ACL.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "asc/asc.h"
#include "ir/ir.h"
#include "target/platform.h"

namespace asc {

struct LaunchOptions {
  bool sanitize = true;  // racecheck, initcheck, synccheck, GM write conflicts (the Model)
  bool record = false;   // keep every op's start/end for a trace (the Model)
  // A block that runs more ops than this (loop iterations count too) fails:
  // a kernel whose loop never ends is an error, not a hang. 0: no limit.
  uint64_t max_ops = uint64_t{1} << 32;
  // Where printf / dump_tensor text goes, in block order; filled even when the
  // launch fails (with the blocks up to the failing one). Null: discarded.
  std::string* output = nullptr;
  // Wall-clock budget (0: none): a launch still running past it fails with ASC_ERR_RUNTIME (the Model).
  uint64_t timeout_ns = 0;
  // The launch stops (ASC_ERR_RUNTIME) once *cancel differs from cancel_epoch (the Model). Null: never.
  const std::atomic<uint64_t>* cancel = nullptr;
  uint64_t cancel_epoch = 0;
  // Bytes of printed text one launch keeps (0: no limit); past it the text is cut, and says so (the Model).
  uint64_t max_output = uint64_t{1} << 20;
  // The Model's memcheck warnings (GM padding, a local tensor used past its end, repeated identical writes) fail
  // the launch instead (ASC_STRICT=1, stream option strict).
  bool strict = false;
};

// What a launch leaves: timing, warnings and the per-line and per-op profile (the Model; the NPU reports none).
struct LaunchReport {
  uint64_t cycles = 0;  // launch cost + the blocks, in waves of the platform's vector cores
  double duration_us = 0;
  uint32_t blocks = 0;
  std::array<uint64_t, kPipeSlots> busy{};  // summed over blocks
  std::vector<std::string> warnings;
  struct Line {
    std::string file;
    uint32_t line;
    uint64_t cycles, count;
  };
  std::vector<Line> lines;  // by source line, most cycles first
  struct Event {
    uint32_t block;
    Pipe pipe;
    uint64_t start, end;  // cycles from the launch's start
    const Op* op;
  };
  std::vector<Event> events;  // only when LaunchOptions::record
};

class Device {
 public:
  explicit Device(const Platform& platform) : platform_(platform) {}
  virtual ~Device() = default;
  // Checks the launch (check), then runs it to completion; results are visible when it returns.
  LaunchReport launch(const Kernel& kernel, uint32_t block_dim, const asc_arg_t* args, size_t n_args,
                      const LaunchOptions& options) {
    check(kernel, block_dim, args, n_args);
    return run(kernel, block_dim, args, n_args, options);
  }
  // What launch checks before running anything (runtime/arguments.h): an asynchronous launch checks at the call.
  void check(const Kernel& kernel, uint32_t block_dim, const asc_arg_t* args, size_t n_args) const;
  virtual void synchronize() {}
  const Platform& platform() const { return platform_; }
  // The NPU backend's kernel compiler (asc_device_set_npu_compiler): the absolute path of the object file ACL
  // loads for a kernel, called at the kernel's first launch on the device. An empty function restores libasc's
  // own build (acl::compile_for_npu). Only NPU devices take one: false for the Model, which compiles nothing.
  using NpuCompiler = std::function<std::string(const Kernel&)>;
  virtual bool set_npu_compiler(NpuCompiler) { return false; }
  // Device memory of the device's own (asc_device_malloc / asc_device_free / asc_device_memcpy; `policy` an
  // asc_malloc_policy_t, `kind` an asc_memcpy_kind_t). Only the NPU has any: the Model's GM is the caller's host
  // memory, so on it these throw ASC_ERR_INVALID_ARGUMENT.
  virtual void* allocate_memory(uint64_t size, uint32_t policy);
  virtual void free_memory(void* ptr);
  virtual void copy_memory(void* dst, uint64_t dst_max, const void* src, uint64_t count, uint32_t kind);
  // Device binaries built elsewhere (asc_device_load_binary, asc_device_binary_function, asc_device_unload_binary,
  // asc_device_launch_function): only the NPU loads any; the Model throws ASC_ERR_INVALID_ARGUMENT.
  virtual void* load_binary(const void* data, size_t len);
  virtual void* binary_function(void* binary, const std::string& name);
  virtual void unload_binary(void* binary);
  virtual void launch_function(void* function, uint32_t block_dim, const asc_arg_t* args, size_t n_args);

 protected:
  // A launch that passed check.
  virtual LaunchReport run(const Kernel& kernel, uint32_t block_dim, const asc_arg_t* args, size_t n_args,
                           const LaunchOptions& options) = 0;
  // Whether a GM parameter takes NPU memory (ASC_ARG_DEVICE_BUFFER) besides host buffers.
  virtual bool takes_device_memory() const { return false; }

 private:
  const Platform& platform_;
};

enum class Backend : uint32_t { Model = ASC_BACKEND_MODEL, NPU = ASC_BACKEND_NPU };

std::unique_ptr<Device> make_device(Backend backend, const Platform& platform, int32_t device_id);
std::unique_ptr<Device> make_model_device(const Platform& platform);
// Throws ASC_ERR_BACKEND_UNAVAILABLE with the reason when CANN cannot be used.
std::unique_ptr<Device> make_npu_device(const Platform& platform, int32_t device_id);
// The NPUs this process can use, and a fact about one (`info` an asc_npu_info_t), through ACL; throw
// ASC_ERR_BACKEND_UNAVAILABLE naming the call when CANN cannot be used (runtime/acl/acl_queries.cpp).
uint32_t npu_device_count();
int64_t npu_device_info(int32_t device_id, uint32_t info);

}  // namespace asc
