// NPU device memory through ACL (asc_device_malloc, asc_device_free, asc_device_memcpy): the checks ACL would
// take badly (sizes, null pointers, enum values) and asc's enums mapped to ACL's, one by one.
#pragma once

#include <cstdint>

#include "runtime/acl/acl_api.h"

namespace asc::acl {

// `size` bytes (> 0, fitting size_t) by aclrtMalloc with `policy` (an asc_malloc_policy_t).
void* allocate(const Api& a, uint64_t size, uint32_t policy);
// aclrtFree of a non-null pointer.
void release(const Api& a, void* ptr);
// aclrtMemcpy of `count` bytes (<= dst_max; 0: nothing), `kind` an asc_memcpy_kind_t.
void copy(const Api& a, void* dst, uint64_t dst_max, const void* src, uint64_t count, uint32_t kind);

}  // namespace asc::acl
