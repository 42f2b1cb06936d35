// Splitting a tile program over a mix kernel's cores, before double buffering.
#pragma once

#include "ir/ir.h"

namespace asc {

// With the "split_cube_vector" option: the kernel's one program becomes
//   if (ASCEND_IS_AIC) { the cube core's part } else { the vector cores' part }.
// An op belongs to the cube core when it touches L1 / L0A / L0B / L0C / the bias table or runs on M, MTE1 or FIX;
// to the vector cores when it touches the Unified Buffer or runs on V or MTE3 (or writes memory from the scalar
// unit, or prints); other ops (scalar arithmetic, loops, branches, constants) go to both, and a loop or branch goes
// to a part only if it holds something of it. A value of one part reaching an op of the other is an error naming
// that op. fixpipe.ub (Ascend 950's L0C -> UB) is the cube core's, and the Unified Buffer tensor it writes is
// allocated before the split, so both parts see it at one address. Each cross-core flag the vector part sets and
// the cube part waits for (the hand-over's "the Unified Buffer is free again") starts with one credit, set at the
// vector part's start, and the cube part's end takes the last one, so every set is matched by a wait.
void split_cube_vector(Kernel& kernel);

}  // namespace asc
