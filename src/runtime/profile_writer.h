// Writes a launch's profile: a Chrome-trace JSON (one track per pipe per
// core, for Perfetto / chrome://tracing) and a per-source-line cost table.
#pragma once

#include <string>

#include "runtime/device.h"

namespace asc {

std::string lines_csv(const LaunchReport& report);
// Writes <dir>/<kernel>.trace.json and <dir>/<kernel>.lines.csv.
void write_profile(const std::string& dir, const Kernel& kernel, const Platform& platform, const LaunchReport& report);

}  // namespace asc
