// Double buffering of loads in loops, before local-memory allocation.
#pragma once

#include "ir/ir.h"

namespace asc {

// Builds every `for` whose body holds (at any depth) a local_tensor.auto marked
// double_buffer in pairs of iterations: a loop over trips / 2 pairs whose body
// is the original body twice (copy 0 and copy 1, the induction variable
// lb + (2 * pair + copy) * step), then an `if` for the odd last iteration. Copy
// 0's k-th marked tensor directly in the body becomes one tensor of twice the
// length, and copy 1's k-th is its second half, so one iteration's copy in
// goes to memory the other iteration is not computing on. Inner loops are
// paired first. Unmarked kernels are left as they are.
void double_buffer(Kernel& kernel);

}  // namespace asc
