// fork(): threads do not survive into the child, so what owns threads (the simulator's thread pool, an
// asynchronous stream's queue) notes the generation it was made in and checks it before using them.
#pragma once

#include <cstdint>

namespace asc {

// 0 in the process that loaded the library; +1 in each child of a fork (pthread_atfork), counted from the parent's.
uint64_t fork_generation();

}  // namespace asc
