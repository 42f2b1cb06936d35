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

// aclrtMemcpyKind: ACL_MEMCPY_HOST_TO_HOST = 0, HOST_TO_DEVICE = 1, DEVICE_TO_HOST = 2, DEVICE_TO_DEVICE = 3 (CANN
// 8.0 "aclrtMemcpyAsync",
// hiascend.com/document/detail/en/canncommercial/800/apiref/appdevgapi/aclpythondevg_01_0125.html).
enum MemcpyKind : int32_t { kHostToHost = 0, kHostToDevice = 1, kDeviceToHost = 2, kDeviceToDevice = 3 };
// aclrtMemMallocPolicy: ACL_MEM_MALLOC_HUGE_FIRST = 0, HUGE_ONLY = 1, NORMAL_ONLY = 2 (CANN 8.0,
// .../canncommercial/800/apiref/appdevgapi/aclcppdevg_03_1349.html and aclpythondevg_01_0925.html).
constexpr int32_t kMallocHugeFirst = 0;
constexpr int32_t kMallocHugeOnly = 1;
constexpr int32_t kMallocNormalOnly = 2;
// aclrtDevAttr: ACL_DEV_ATTR_AICORE_CORE_NUM = 101, CUBE_CORE_NUM = 102, VECTOR_CORE_NUM = 201 (CANN 8.5,
// .../canncommercial/850/API/appdevgapi/aclcppdevg_03_1876.html).
constexpr int32_t kDevAttrAicoreCoreNum = 101;
constexpr int32_t kDevAttrCubeCoreNum = 102;
constexpr int32_t kDevAttrVectorCoreNum = 201;
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

// Functions only some calls need (the device queries, loading a binary from memory): resolved when the library loads
// but not required then, so a CANN without one still launches; the call that needs it fails naming it (require()).
#define ASC_ACL_OPTIONAL_FUNCTIONS(X)                                                 \
  X(aclrtGetDeviceCount, Error (*)(uint32_t * count))                                 \
  X(aclrtGetDeviceInfo, Error (*)(uint32_t device_id, int32_t attr, int64_t * value)) \
  X(aclrtBinaryLoadFromData, Error (*)(const void* data, size_t length, const void* options, BinHandle* bin))

// The loaded library. Every function is resolved when it loads, so a CANN
// too old for one of them is reported up front, naming it.
struct Api {
#define ASC_ACL_MEMBER(name, type) \
  using name##_fn = type;          \
  name##_fn name = nullptr;
  ASC_ACL_FUNCTIONS(ASC_ACL_MEMBER)
  ASC_ACL_OPTIONAL_FUNCTIONS(ASC_ACL_MEMBER)
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

// The loaded library for `call` (an asc_* function, for the message): api(), or ASC_ERR_BACKEND_UNAVAILABLE
// saying that `call` needs CANN and what to install.
const Api& api_for(const char* call);

// `fn` itself, or ASC_ERR_BACKEND_UNAVAILABLE when the library has no such function: `call` needs a newer CANN.
[[noreturn]] void missing_function(const Api& a, const char* name, const char* call);
template <typename F>
F require(const Api& a, F fn, const char* name, const char* call) {
  if (!fn) missing_function(a, name, call);
  return fn;
}

// Throws ASC_ERR_RUNTIME naming the call, its error code and ACL's own
// message (aclGetRecentErrMsg) when `error` is not success.
void check(const Api& a, Error error, const char* call);

}  // namespace asc::acl
