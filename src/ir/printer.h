// IR as text, MLIR-flavoured, with source locations.
#pragma once

#include <string>

#include "ir/ir.h"

namespace asc {

std::string print_kernel(const Kernel& kernel);

}  // namespace asc
