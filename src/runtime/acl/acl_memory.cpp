#include "runtime/acl/acl_memory.h"

#include <limits>

#include "support/error.h"

namespace asc::acl {

namespace {

int32_t acl_policy(uint32_t policy) {
  switch (policy) {
    case ASC_MALLOC_HUGE_FIRST: return kMallocHugeFirst;
    case ASC_MALLOC_HUGE_ONLY: return kMallocHugeOnly;
    case ASC_MALLOC_NORMAL_ONLY: return kMallocNormalOnly;
    default:
      fail(ASC_ERR_INVALID_ARGUMENT,
           "asc_device_malloc: policy {} is not an asc_malloc_policy_t (0 HUGE_FIRST, 1 HUGE_ONLY, 2 NORMAL_ONLY)",
           policy);
  }
}

int32_t acl_kind(uint32_t kind) {
  switch (kind) {
    case ASC_MEMCPY_HOST_TO_HOST: return kHostToHost;
    case ASC_MEMCPY_HOST_TO_DEVICE: return kHostToDevice;
    case ASC_MEMCPY_DEVICE_TO_HOST: return kDeviceToHost;
    case ASC_MEMCPY_DEVICE_TO_DEVICE: return kDeviceToDevice;
    default:
      fail(ASC_ERR_INVALID_ARGUMENT,
           "asc_device_memcpy: kind {} is not an asc_memcpy_kind_t (0 HOST_TO_HOST, 1 HOST_TO_DEVICE, "
           "2 DEVICE_TO_HOST, 3 DEVICE_TO_DEVICE)",
           kind);
  }
}

size_t byte_count(uint64_t n, const char* call, const char* what) {
  if (n > std::numeric_limits<size_t>::max())
    fail(ASC_ERR_INVALID_ARGUMENT, "{}: {} {} does not fit in size_t", call, what, n);
  return static_cast<size_t>(n);
}

}  // namespace

void* allocate(const Api& a, uint64_t size, uint32_t policy) {
  if (size == 0) fail(ASC_ERR_INVALID_ARGUMENT, "asc_device_malloc: size must be > 0 (aclrtMalloc refuses 0)");
  int32_t acl = acl_policy(policy);
  void* ptr = nullptr;
  check(a, a.aclrtMalloc(&ptr, byte_count(size, "asc_device_malloc", "size"), acl), "aclrtMalloc");
  if (!ptr) fail(ASC_ERR_RUNTIME, "aclrtMalloc of {} bytes succeeded but gave a null address", size);
  return ptr;
}

void release(const Api& a, void* ptr) {
  if (!ptr) fail(ASC_ERR_INVALID_ARGUMENT, "asc_device_free: ptr is null");
  check(a, a.aclrtFree(ptr), "aclrtFree");
}

void copy(const Api& a, void* dst, uint64_t dst_max, const void* src, uint64_t count, uint32_t kind) {
  int32_t acl = acl_kind(kind);
  if (count > dst_max)
    fail(ASC_ERR_INVALID_ARGUMENT, "asc_device_memcpy: {} bytes do not fit in a {}-byte destination", count, dst_max);
  if (count == 0) return;
  if (!dst || !src) fail(ASC_ERR_INVALID_ARGUMENT, "asc_device_memcpy: {} is null", dst ? "src" : "dst");
  check(a,
        a.aclrtMemcpy(dst, byte_count(dst_max, "asc_device_memcpy", "dst_max"), src,
                      byte_count(count, "asc_device_memcpy", "count"), acl),
        "aclrtMemcpy");
}

}  // namespace asc::acl
