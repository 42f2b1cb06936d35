// Runs compiled Ascend C kernels on an NPU through ACL: one device and
// stream, device memory for the host buffers of each launch (copied in before,
// out after), each kernel binary registered once, the argument block packed
// as the kernel's C parameter list.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "asc/asc.h"
#include "runtime/acl/acl_api.h"

namespace asc::acl {

// A kernel as bisheng compiled it: the object file and its entry point.
struct KernelBinary {
  std::string path;         // absolute (aclrtBinaryLoadFromFile wants one)
  std::string kernel_name;  // the extern "C" __global__ function
};

// The argument block of a launch, laid out as the kernel's parameters in C:
// each at its natural alignment (GM addresses: 8-byte device pointers;
// scalars: their dtype's size), the block padded to 8 bytes.
std::vector<uint8_t> pack_arguments(const asc_arg_t* args, size_t n_args, const std::vector<void*>& device_ptrs);

class Launcher {
 public:
  Launcher(const Api& api, int32_t device_id);
  ~Launcher();
  Launcher(const Launcher&) = delete;
  Launcher& operator=(const Launcher&) = delete;

  // Copies host buffers (ASC_ARG_BUFFER) to the device, launches on
  // block_dim cores, waits, copies them back. ASC_ARG_DEVICE_BUFFER
  // arguments are passed as they are (memory already on this NPU).
  void launch(const KernelBinary& binary, uint32_t block_dim, const asc_arg_t* args, size_t n_args);

  // Device binaries the caller loads from memory (asc_device_load_binary ...) and owns: loaded, looked up,
  // unloaded and launched (as launch does, after checking what can be checked of arguments without a kernel:
  // block_dim, kinds, dtypes, pointers).
  BinHandle load_binary(const void* data, size_t len);
  FuncHandle binary_function(BinHandle binary, const std::string& name);
  void unload_binary(BinHandle binary);
  void launch_function(FuncHandle func, uint32_t block_dim, const asc_arg_t* args, size_t n_args);

 private:
  FuncHandle function(const KernelBinary& binary);
  void run(FuncHandle func, uint32_t block_dim, const asc_arg_t* args, size_t n_args);

  const Api& api_;
  int32_t device_id_;
  Stream stream_ = nullptr;
  std::mutex mutex_;                             // one launch at a time on the stream
  std::map<std::string, BinHandle> binaries_;    // path -> loaded binary
  std::map<std::string, FuncHandle> functions_;  // path + '\0' + kernel name -> function
};

}  // namespace asc::acl
