// Library logging through spdlog. The level starts from ASC_LOG_LEVEL
// (trace, debug, info, warn, error, critical, off, or 0..6); default warn.
#pragma once

#include <spdlog/spdlog.h>

namespace asc {

spdlog::logger& log();
void set_log_level(int level);

}  // namespace asc
