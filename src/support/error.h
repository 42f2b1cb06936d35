// Internal error type. Thrown inside libasc, caught at the C ABI boundary
// (capi/) and turned into an asc_status_t plus a thread-local message.
#pragma once

#include <fmt/format.h>

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>

#include "asc/asc.h"

namespace asc {

// A point in the user's source. `file` is shared between all ops of a kernel.
struct Location {
  std::shared_ptr<const std::string> file;
  uint32_t line = 0;
  uint32_t col = 0;

  bool known() const { return file && !file->empty(); }
  std::string str() const;  // "file:line:col" or "<unknown>"
};

class Error : public std::runtime_error {
 public:
  Error(asc_status_t status, std::string message, Location loc = {})
      : std::runtime_error(std::move(message)), status_(status), loc_(std::move(loc)) {}
  asc_status_t status() const { return status_; }
  const Location& loc() const { return loc_; }

 private:
  asc_status_t status_;
  Location loc_;
};

template <typename... Args>
[[noreturn]] void fail(asc_status_t status, const Location& loc, fmt::format_string<Args...> f, Args&&... args) {
  throw Error(status, fmt::format(f, std::forward<Args>(args)...), loc);
}

template <typename... Args>
[[noreturn]] void fail(asc_status_t status, fmt::format_string<Args...> f, Args&&... args) {
  throw Error(status, fmt::format(f, std::forward<Args>(args)...));
}

}  // namespace asc
