#include "support/error.h"

namespace asc {

std::string Location::str() const {
  if (!known()) return "<unknown>";
  return fmt::format("{}:{}:{}", *file, line, col);
}

}  // namespace asc
