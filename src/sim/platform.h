// Per-SoC facts used by the Model backend: one row per platform.
#pragma once

#include <string_view>
#include <vector>

#include "asc/asc.h"

namespace asc {

struct Platform {
  const char* name;
  asc_platform_info_t info;
};

const std::vector<Platform>& platforms();
const Platform* find_platform(std::string_view name);
std::string known_platform_names();

}  // namespace asc
