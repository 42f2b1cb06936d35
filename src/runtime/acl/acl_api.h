// The part of the Ascend runtime (ACL, libascendcl.so) the NPU backend calls,
// loaded with dlopen at run time: libasc.so has no link-time dependency on
// CANN, and a machine without it gets a clear error, not a loader failure.
// Signatures follow the CANN 8 "aclrt" C API (acl/acl_rt.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace asc::acl {

using Error = int32_t;  // aclError: 0 is success
using Stream = void*;   // aclrtStream
using BinHandle = void*;
using FuncHandle = void*;

enum MemcpyKind : int32_t { kHostToHost = 0, kHostToDevice = 1, kDeviceToHost = 2, kDeviceToDevice = 3 };
constexpr int32_t kMallocHugeFirst = 0;      // aclrtMemMallocPolicy ACL_MEM_MALLOC_HUGE_FIRST
constexpr Error kRepeatInitialize = 100002;  // aclInit called twice in one process: not an error for us

// One entry per function: its name (for dlsym and messages) and type.
#define ASC_ACL_FUNCTIONS(X)                                                                                    \
  X(aclInit, Error (*)(const char* config_path))                                                                \
  X(aclrtSetDevice, Error (*)(int32_t device_id))                                                               \
  X(aclrtResetDevice, Error (*)(int32_t device_id))                                                             \
  X(aclrtCreateStream, Error (*)(Stream * stream))                                                              \
  X(aclrtDestroyStream, Error (*)(Stream stream))                                                               \
  X(aclrtSynchronizeStream, Error (*)(Stream stream))                                                           \
  X(aclrtMalloc, Error (*)(void** dev_ptr, size_t size, int32_t policy))                                        \
  X(aclrtFree, Error (*)(void* dev_ptr))                                                                        \
  X(aclrtMemcpy, Error (*)(void* dst, size_t dst_max, const void* src, size_t count, int32_t kind))             \
  X(aclrtBinaryLoadFromFile, Error (*)(const char* path, void* options, BinHandle* bin))                        \
  X(aclrtBinaryGetFunction, Error (*)(BinHandle bin, const char* kernel_name, FuncHandle* func))                \
  X(aclrtBinaryUnLoad, Error (*)(BinHandle bin))                                                                \
  X(aclrtLaunchKernelWithHostArgs,                                                                              \
    Error (*)(FuncHandle func, uint32_t block_dim, Stream stream, void* cfg, void* host_args, size_t args_size, \
              void* placeholders, size_t n_placeholders))                                                       \
  X(aclGetRecentErrMsg, const char* (*)())

// The loaded library. Every function is resolved when it loads, so a CANN
// too old for one of them is reported up front, naming it.
struct Api {
#define ASC_ACL_MEMBER(name, type) \
  using name##_fn = type;          \
  name##_fn name = nullptr;
  ASC_ACL_FUNCTIONS(ASC_ACL_MEMBER)
#undef ASC_ACL_MEMBER
  std::string path;  // what was loaded
};

// Loads the library at `path` (a name the loader searches for, or a path);
// throws ASC_ERR_BACKEND_UNAVAILABLE naming what is missing.
Api load_api(const std::string& path);

// Loads the library once per process: $ASC_ACL_LIBRARY if set (a stand-in in
// tests, or CANN in an unusual place), else libascendcl.so from the loader's
// search path (CANN's set_env.sh puts it there). Throws
// ASC_ERR_BACKEND_UNAVAILABLE saying what is missing and what to install.
const Api& api();

// Throws ASC_ERR_RUNTIME naming the call, its error code and ACL's own
// message (aclGetRecentErrMsg) when `error` is not success.
void check(const Api& a, Error error, const char* call);

}  // namespace asc::acl
