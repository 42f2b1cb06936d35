// Which kernel parameters an op of the kernel may write through (issue 19):
// a caller that marks a buffer read-only (numpy's writeable flag, a read-only
// memmap, a torch leaf that requires grad) is refused before the launch runs.
#pragma once

#include <vector>

#include "ir/ir.h"

namespace asc {

// For each parameter (by index), whether some op's memory effect writes a GM
// tensor or address derived from it: set_global_buffer, offsets and views of
// it, variables assigned from it. Conservative: a GM value made from several
// parameters counts for each of them.
std::vector<bool> param_writes(const Kernel& kernel);

}  // namespace asc
