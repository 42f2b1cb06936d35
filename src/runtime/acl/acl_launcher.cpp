#include "runtime/acl/acl_launcher.h"

#include <cstring>

#include "ir/types.h"
#include "support/error.h"
#include "support/log.h"
#include "target/scalar_arith.h"

namespace asc::acl {

namespace {

// Device memory for one launch, freed whatever happens.
class DeviceBuffers {
 public:
  explicit DeviceBuffers(const Api& api) : api_(api) {}
  ~DeviceBuffers() {
    for (void* p : owned_)
      if (Error e = api_.aclrtFree(p)) log().warn("aclrtFree failed with ACL error {}", e);
  }
  void* allocate(size_t bytes) {
    void* p = nullptr;
    check(api_, api_.aclrtMalloc(&p, bytes ? bytes : 1, kMallocHugeFirst), "aclrtMalloc");
    owned_.push_back(p);
    return p;
  }

 private:
  const Api& api_;
  std::vector<void*> owned_;
};

size_t align_up(size_t n, size_t a) { return (n + a - 1) / a * a; }

}  // namespace

std::vector<uint8_t> pack_arguments(const asc_arg_t* args, size_t n_args, const std::vector<void*>& device_ptrs) {
  std::vector<uint8_t> block;
  for (size_t i = 0; i < n_args; ++i) {
    const asc_arg_t& a = args[i];
    if (a.kind != ASC_ARG_SCALAR) {
      size_t at = align_up(block.size(), sizeof(void*));
      block.resize(at + sizeof(void*));
      std::memcpy(block.data() + at, &device_ptrs[i], sizeof(void*));
      continue;
    }
    DType d = static_cast<DType>(a.dtype);
    size_t size = dtype_size(d);
    size_t at = align_up(block.size(), size);
    block.resize(at + size);
    store_arg_scalar(block.data() + at, d, a.i, a.f);
  }
  block.resize(align_up(block.size(), 8));
  return block;
}

Launcher::Launcher(const Api& api, int32_t device_id) : api_(api), device_id_(device_id) {
  Error init = api_.aclInit(nullptr);
  if (init != kRepeatInitialize) check(api_, init, "aclInit");
  check(api_, api_.aclrtSetDevice(device_id), "aclrtSetDevice");
  check(api_, api_.aclrtCreateStream(&stream_), "aclrtCreateStream");
}

Launcher::~Launcher() {
  for (auto& [path, bin] : binaries_) api_.aclrtBinaryUnLoad(bin);
  if (stream_) api_.aclrtDestroyStream(stream_);
  api_.aclrtResetDevice(device_id_);
}

FuncHandle Launcher::function(const KernelBinary& binary) {
  std::string key = binary.path + '\0' + binary.kernel_name;
  auto found = functions_.find(key);
  if (found != functions_.end()) return found->second;
  BinHandle& bin = binaries_[binary.path];
  if (!bin) {
    Error e = api_.aclrtBinaryLoadFromFile(binary.path.c_str(), nullptr, &bin);
    if (e) binaries_.erase(binary.path);
    check(api_, e, "aclrtBinaryLoadFromFile");
  }
  FuncHandle func = nullptr;
  check(api_, api_.aclrtBinaryGetFunction(bin, binary.kernel_name.c_str(), &func), "aclrtBinaryGetFunction");
  return functions_[key] = func;
}

void Launcher::launch(const KernelBinary& binary, uint32_t block_dim, const asc_arg_t* args, size_t n_args) {
  std::lock_guard<std::mutex> lock(mutex_);
  run(function(binary), block_dim, args, n_args);
}

BinHandle Launcher::load_binary(const void* data, size_t len) {
  const char* call = "asc_device_load_binary";
  if (!data || len == 0) fail(ASC_ERR_INVALID_ARGUMENT, "{}: the binary is {}", call, data ? "empty" : "null");
  auto load = require(api_, api_.aclrtBinaryLoadFromData, "aclrtBinaryLoadFromData", call);
  BinHandle bin = nullptr;
  check(api_, load(data, len, nullptr, &bin), "aclrtBinaryLoadFromData");
  return bin;
}

FuncHandle Launcher::binary_function(BinHandle binary, const std::string& name) {
  if (!binary) fail(ASC_ERR_INVALID_ARGUMENT, "asc_device_binary_function: binary is null");
  if (name.empty()) fail(ASC_ERR_INVALID_ARGUMENT, "asc_device_binary_function: the kernel name is empty");
  FuncHandle func = nullptr;
  check(api_, api_.aclrtBinaryGetFunction(binary, name.c_str(), &func), "aclrtBinaryGetFunction");
  return func;
}

void Launcher::unload_binary(BinHandle binary) {
  if (!binary) fail(ASC_ERR_INVALID_ARGUMENT, "asc_device_unload_binary: binary is null");
  check(api_, api_.aclrtBinaryUnLoad(binary), "aclrtBinaryUnLoad");
}

void Launcher::launch_function(FuncHandle func, uint32_t block_dim, const asc_arg_t* args, size_t n_args) {
  const char* call = "asc_device_launch_function";
  if (!func) fail(ASC_ERR_INVALID_ARGUMENT, "{}: function is null", call);
  if (block_dim == 0 || block_dim > 65535)
    fail(ASC_ERR_INVALID_ARGUMENT, "{}: block_dim {} is not in 1..65535", call, block_dim);
  if (n_args && !args) fail(ASC_ERR_INVALID_ARGUMENT, "{}: args is null", call);
  for (size_t i = 0; i < n_args; ++i) {
    const asc_arg_t& a = args[i];
    if (a.kind == ASC_ARG_SCALAR) {
      if (a.dtype >= ASC_DTYPE_COUNT)
        fail(ASC_ERR_INVALID_ARGUMENT, "{}: argument {} has dtype {}, not an asc_dtype_t", call, i, a.dtype);
    } else if (a.kind == ASC_ARG_BUFFER || a.kind == ASC_ARG_DEVICE_BUFFER) {
      if (!a.ptr) fail(ASC_ERR_INVALID_ARGUMENT, "{}: argument {} is a null buffer", call, i);
    } else {
      fail(ASC_ERR_INVALID_ARGUMENT, "{}: argument {} has kind {}, not an asc_arg_kind_t", call, i, a.kind);
    }
  }
  std::lock_guard<std::mutex> lock(mutex_);
  run(func, block_dim, args, n_args);
}

void Launcher::run(FuncHandle func, uint32_t block_dim, const asc_arg_t* args, size_t n_args) {
  DeviceBuffers buffers(api_);
  std::vector<void*> device_ptrs(n_args, nullptr);
  for (size_t i = 0; i < n_args; ++i) {
    const asc_arg_t& a = args[i];
    if (a.kind == ASC_ARG_DEVICE_BUFFER) {
      device_ptrs[i] = a.ptr;
    } else if (a.kind == ASC_ARG_BUFFER) {
      device_ptrs[i] = buffers.allocate(a.size);
      if (a.size)
        check(api_, api_.aclrtMemcpy(device_ptrs[i], a.size, a.ptr, a.size, kHostToDevice), "aclrtMemcpy (to the NPU)");
    }
  }
  std::vector<uint8_t> block = pack_arguments(args, n_args, device_ptrs);
  check(api_,
        api_.aclrtLaunchKernelWithHostArgs(func, block_dim, stream_, nullptr, block.data(), block.size(), nullptr, 0),
        "aclrtLaunchKernelWithHostArgs");
  check(api_, api_.aclrtSynchronizeStream(stream_), "aclrtSynchronizeStream");
  for (size_t i = 0; i < n_args; ++i)
    if (args[i].kind == ASC_ARG_BUFFER && args[i].size)
      check(api_, api_.aclrtMemcpy(args[i].ptr, args[i].size, device_ptrs[i], args[i].size, kDeviceToHost),
            "aclrtMemcpy (from the NPU)");
}

}  // namespace asc::acl
