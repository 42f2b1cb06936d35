// What ACL says about the NPUs (asc_npu_device_count, asc_npu_device_info): process-wide queries that need no
// device opened, each mapping asc's enum to ACL's explicitly.
#include "runtime/acl/acl_api.h"
#include "runtime/device.h"
#include "support/error.h"

namespace asc {

namespace {

// aclInit once before any query (a second aclInit, e.g. the launcher's, is not an error).
void initialise(const acl::Api& a) {
  acl::Error init = a.aclInit(nullptr);
  if (init != acl::kRepeatInitialize) acl::check(a, init, "aclInit");
}

int32_t dev_attr(uint32_t info) {
  switch (info) {
    case ASC_NPU_INFO_AICORE_NUM: return acl::kDevAttrAicoreCoreNum;
    case ASC_NPU_INFO_CUBE_CORE_NUM: return acl::kDevAttrCubeCoreNum;
    case ASC_NPU_INFO_VECTOR_CORE_NUM: return acl::kDevAttrVectorCoreNum;
    default:
      fail(ASC_ERR_INVALID_ARGUMENT,
           "asc_npu_device_info: info {} is not an asc_npu_info_t (0 AICORE_NUM, 1 CUBE_CORE_NUM, 2 VECTOR_CORE_NUM)",
           info);
  }
}

}  // namespace

uint32_t npu_device_count() {
  const char* call = "asc_npu_device_count";
  const acl::Api& a = acl::api_for(call);
  auto count_fn = acl::require(a, a.aclrtGetDeviceCount, "aclrtGetDeviceCount", call);
  initialise(a);
  uint32_t count = 0;
  acl::check(a, count_fn(&count), "aclrtGetDeviceCount");
  return count;
}

int64_t npu_device_info(int32_t device_id, uint32_t info) {
  const char* call = "asc_npu_device_info";
  int32_t attr = dev_attr(info);
  if (device_id < 0) fail(ASC_ERR_INVALID_ARGUMENT, "asc_npu_device_info: device id {} is negative", device_id);
  const acl::Api& a = acl::api_for(call);
  auto info_fn = acl::require(a, a.aclrtGetDeviceInfo, "aclrtGetDeviceInfo", call);
  initialise(a);
  int64_t value = 0;
  acl::check(a, info_fn(static_cast<uint32_t>(device_id), attr, &value), "aclrtGetDeviceInfo");
  return value;
}

}  // namespace asc
