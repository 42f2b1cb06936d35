#include "support/log.h"

#include <spdlog/sinks/stdout_color_sinks.h>

#include <cstdlib>
#include <string>

namespace asc {
namespace {

spdlog::level::level_enum level_from_env() {
  const char* env = std::getenv("ASC_LOG_LEVEL");
  if (!env || !*env) return spdlog::level::warn;
  std::string s(env);
  if (s.size() == 1 && s[0] >= '0' && s[0] <= '6') return static_cast<spdlog::level::level_enum>(s[0] - '0');
  auto level = spdlog::level::from_str(s);  // unknown names give "off"
  return (level == spdlog::level::off && s != "off") ? spdlog::level::warn : level;
}

std::shared_ptr<spdlog::logger> make_logger() {
  auto logger = spdlog::stderr_color_mt("asc");
  logger->set_level(level_from_env());
  logger->set_pattern("[asc %l] %v");
  return logger;
}

}  // namespace

spdlog::logger& log() {
  static std::shared_ptr<spdlog::logger> logger = make_logger();
  return *logger;
}

void set_log_level(int level) { log().set_level(static_cast<spdlog::level::level_enum>(level)); }

}  // namespace asc
