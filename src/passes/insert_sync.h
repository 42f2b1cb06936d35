// Inserts the set_flag/wait_flag pairs and pipe barriers a kernel's
// local-memory dependences need, per kernel.options:
//   auto_sync   — dependences between the scalar unit and MTE2/MTE3/V, and
//                 between vector instructions (pipe_barrier(PIPE_V));
//   insert_sync — every dependence between pipes, as well.
#pragma once

#include "ir/ir.h"

namespace asc {

void insert_sync(Kernel& kernel);

}  // namespace asc
