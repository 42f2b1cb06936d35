// Places local_tensor.auto tensors in the Unified Buffer.
#pragma once

#include "ir/ir.h"

namespace asc {

// Replaces every local_tensor.auto by a local_tensor.create at a fixed
// address; tensors whose live ranges do not overlap share memory. Returns the
// first byte above the placed tensors (where the TPipe allocator starts).
int64_t allocate_local(Kernel& kernel);

}  // namespace asc
