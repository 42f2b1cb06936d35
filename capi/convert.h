// Conversions between the C ABI's structs (include/asc/asc.h) and the C++
// types of the layers below: only capi/ sees both.
#pragma once

#include "asc/asc.h"
#include "ir/types.h"
#include "runtime/device.h"
#include "target/platform.h"

namespace asc::capi {

Type type_from_c(const asc_type_t& t);  // throws asc::Error on bad values
asc_type_t type_to_c(const Type& t);

Backend backend_from_c(uint32_t backend);  // throws asc::Error for an unknown one
asc_platform_info_t platform_info_to_c(const PlatformInfo& info);
void stats_to_c(const LaunchReport& report, asc_launch_stats_t* out);

}  // namespace asc::capi
