// A stand-in libascendcl.so for the tests of the NPU launcher: it exports the
// ACL functions the launcher resolves, records every call, hands out "device"
// memory from an arena of its own (so the tests can tell device addresses from
// host ones), and can be told to fail a call. One kernel really runs: a binary
// whose function is "standin_vadd" adds two float32 device buffers, so a
// launch's copies in, argument block and copies out are checked end to end.
//
// Test control (extern "C", found with dlsym): standin_log() is the calls so
// far, one per line; standin_reset() clears it and the failure;
// standin_fail(name, code) makes `name` return `code` from then on;
// standin_set_device_count(n) is what aclrtGetDeviceCount reports (1 at first,
// kept by standin_reset). aclrtGetDeviceInfo answers a 910B1's core counts
// (24 AI and cube cores, 48 vector cores) and refuses other attributes.
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace {

std::mutex mutex;
std::string calls;
std::string failing_call;
int32_t failing_code = 0;
std::string last_error;
constexpr size_t kArenaBytes = 1 << 20;
alignas(64) uint8_t arena[kArenaBytes];  // "device memory"
size_t arena_used = 0;
std::map<void*, size_t> allocations;
int next_handle = 1;
std::map<void*, std::string> functions;  // handle -> kernel name
uint32_t device_count = 1;

int32_t record(const char* name, const std::string& details) {
  calls += name;
  if (!details.empty()) calls += " " + details;
  calls += "\n";
  if (failing_call == name) {
    last_error = std::string("stand-in: ") + name + " was told to fail";
    return failing_code;
  }
  return 0;
}

bool on_device(const void* p, size_t bytes) {
  auto at = static_cast<const uint8_t*>(p);
  return at >= arena && at + bytes <= arena + kArenaBytes;
}

std::string hex(const void* p, size_t n) {
  std::string s;
  char b[3];
  for (size_t i = 0; i < n; ++i) {
    std::snprintf(b, sizeof b, "%02x", static_cast<const uint8_t*>(p)[i]);
    s += b;
  }
  return s;
}

std::string address(const void* p) { return std::to_string(reinterpret_cast<uintptr_t>(p)); }

}  // namespace

#define STANDIN_API extern "C" __attribute__((visibility("default")))

STANDIN_API int32_t aclInit(const char*) {
  std::lock_guard<std::mutex> lock(mutex);
  return record("aclInit", "");
}
STANDIN_API int32_t aclrtSetDevice(int32_t id) {
  std::lock_guard<std::mutex> lock(mutex);
  return record("aclrtSetDevice", std::to_string(id));
}
STANDIN_API int32_t aclrtResetDevice(int32_t id) {
  std::lock_guard<std::mutex> lock(mutex);
  return record("aclrtResetDevice", std::to_string(id));
}
STANDIN_API int32_t aclrtCreateStream(void** stream) {
  std::lock_guard<std::mutex> lock(mutex);
  *stream = reinterpret_cast<void*>(0x5157);
  return record("aclrtCreateStream", "");
}
STANDIN_API int32_t aclrtDestroyStream(void*) {
  std::lock_guard<std::mutex> lock(mutex);
  return record("aclrtDestroyStream", "");
}
STANDIN_API int32_t aclrtSynchronizeStream(void*) {
  std::lock_guard<std::mutex> lock(mutex);
  return record("aclrtSynchronizeStream", "");
}
STANDIN_API int32_t aclrtMalloc(void** p, size_t size, int32_t policy) {
  std::lock_guard<std::mutex> lock(mutex);
  if (int32_t e = record("aclrtMalloc", std::to_string(size) + " policy " + std::to_string(policy))) return e;
  size_t at = (arena_used + 63) / 64 * 64;
  if (at + size > kArenaBytes) {
    last_error = "stand-in: out of device memory (" + std::to_string(size) + " bytes asked)";
    return 207001;  // ACL_ERROR_RT_MEMORY_ALLOCATION
  }
  *p = arena + at;
  arena_used = at + size;
  allocations[*p] = size;
  return 0;
}
STANDIN_API int32_t aclrtFree(void* p) {
  std::lock_guard<std::mutex> lock(mutex);
  if (int32_t e = record("aclrtFree", address(p))) return e;
  size_t erased = allocations.erase(p);
  if (allocations.empty()) arena_used = 0;
  if (erased) return 0;
  last_error = "stand-in: aclrtFree of " + address(p) + ", which aclrtMalloc did not return (or was freed)";
  return 107000;  // ACL_ERROR_INVALID_PARAM: freeing what was not allocated
}
STANDIN_API int32_t aclrtMemcpy(void* dst, size_t dst_max, const void* src, size_t count, int32_t kind) {
  std::lock_guard<std::mutex> lock(mutex);
  static const char* const kinds[] = {"host-to-host", "host-to-device", "device-to-host", "device-to-device"};
  if (int32_t e =
          record("aclrtMemcpy", std::string(kind >= 0 && kind < 4 ? kinds[kind] : "?") + " " + std::to_string(count)))
    return e;
  bool dst_device = kind == 1 || kind == 3, src_device = kind == 2 || kind == 3;
  if (count > dst_max || on_device(dst, count) != dst_device || on_device(src, count) != src_device) {
    last_error = "stand-in: aclrtMemcpy's pointers do not match its kind (or count > destMax)";
    return 107000;
  }
  std::memcpy(dst, src, count);
  return 0;
}
STANDIN_API int32_t aclrtBinaryLoadFromFile(const char* path, void*, void** bin) {
  std::lock_guard<std::mutex> lock(mutex);
  if (int32_t e = record("aclrtBinaryLoadFromFile", path)) return e;
  if (!path || path[0] != '/') return 107000;  // ACL wants an absolute path
  std::FILE* f = std::fopen(path, "rb");
  if (!f) return 507010;
  std::fclose(f);
  *bin = reinterpret_cast<void*>(static_cast<uintptr_t>(next_handle++));
  return 0;
}
#ifndef STANDIN_OLD_CANN
STANDIN_API int32_t aclrtBinaryLoadFromData(const void* data, size_t length, const void*, void** bin) {
  std::lock_guard<std::mutex> lock(mutex);
  if (int32_t e = record("aclrtBinaryLoadFromData",
                         std::to_string(length) + " " + (data ? hex(data, length < 8 ? length : 8) : "null")))
    return e;
  if (!data || length == 0) return 107000;
  *bin = reinterpret_cast<void*>(static_cast<uintptr_t>(next_handle++));
  return 0;
}
#endif
STANDIN_API int32_t aclrtBinaryGetFunction(void* bin, const char* name, void** func) {
  std::lock_guard<std::mutex> lock(mutex);
  if (int32_t e = record("aclrtBinaryGetFunction", name)) return e;
  *func = reinterpret_cast<void*>(static_cast<uintptr_t>(next_handle++));
  functions[*func] = name;
  return 0;
}
STANDIN_API int32_t aclrtBinaryUnLoad(void*) {
  std::lock_guard<std::mutex> lock(mutex);
  return record("aclrtBinaryUnLoad", "");
}
#ifndef STANDIN_OLD_CANN  // the old-CANN variant lacks this function
STANDIN_API int32_t aclrtLaunchKernelWithHostArgs(void* func, uint32_t block_dim, void*, void*, void* args,
                                                  size_t args_size, void*, size_t) {
  std::lock_guard<std::mutex> lock(mutex);
  if (int32_t e = record("aclrtLaunchKernelWithHostArgs",
                         functions[func] + " " + std::to_string(block_dim) + " " + hex(args, args_size)))
    return e;
  if (functions[func] == "standin_vadd") {  // (float* x, float* y, float* z, int32 n): z = x + y
    float* p[3];
    int32_t n;
    if (args_size != 32) return 107000;
    std::memcpy(p, args, sizeof p);
    std::memcpy(&n, static_cast<uint8_t*>(args) + 24, sizeof n);
    for (float* q : p)
      if (!on_device(q, sizeof(float) * static_cast<size_t>(n))) return 507899;  // a host pointer on the device
    for (int32_t i = 0; i < n; ++i) p[2][i] = p[0][i] + p[1][i];
  }
  return 0;
}
#endif
STANDIN_API int32_t aclrtGetDeviceCount(uint32_t* count) {
  std::lock_guard<std::mutex> lock(mutex);
  if (int32_t e = record("aclrtGetDeviceCount", "")) return e;
  *count = device_count;
  return 0;
}
#ifndef STANDIN_OLD_CANN
STANDIN_API int32_t aclrtGetDeviceInfo(uint32_t device_id, int32_t attr, int64_t* value) {
  std::lock_guard<std::mutex> lock(mutex);
  if (int32_t e = record("aclrtGetDeviceInfo", std::to_string(device_id) + " " + std::to_string(attr))) return e;
  if (device_id >= device_count) {
    last_error = "stand-in: no device " + std::to_string(device_id);
    return 107001;  // ACL_ERROR_INVALID_DEVICE
  }
  switch (attr) {
    case 101:  // ACL_DEV_ATTR_AICORE_CORE_NUM
    case 102:  // ACL_DEV_ATTR_CUBE_CORE_NUM
      *value = 24;
      return 0;
    case 201:  // ACL_DEV_ATTR_VECTOR_CORE_NUM
      *value = 48;
      return 0;
    default:
      last_error = "stand-in: aclrtGetDeviceInfo attribute " + std::to_string(attr) + " is not supported";
      return 107000;
  }
}
#endif
STANDIN_API const char* aclGetRecentErrMsg() { return last_error.c_str(); }

// ---- test control ----
STANDIN_API const char* standin_log() { return calls.c_str(); }
STANDIN_API void standin_reset() {
  std::lock_guard<std::mutex> lock(mutex);
  calls.clear();
  failing_call.clear();
  last_error.clear();
}
STANDIN_API void standin_fail(const char* name, int32_t code) {
  std::lock_guard<std::mutex> lock(mutex);
  failing_call = name;
  failing_code = code;
}
STANDIN_API size_t standin_live_allocations() { return allocations.size(); }
STANDIN_API void standin_set_device_count(uint32_t n) {
  std::lock_guard<std::mutex> lock(mutex);
  device_count = n;
}
