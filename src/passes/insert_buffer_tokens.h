// Ascend 950's synchronisation, the way PyAsc2 inserts it there (its insert_bufid_sync and fuse_bufid_sync passes):
// used instead of set_flag / wait_flag when a kernel asks for insert_sync on a platform with buffer tokens.
#pragma once

#include "ir/ir.h"

namespace asc {

// Every op that touches local memory runs between get_buf and rls_buf, on its pipe, of the buffer id of each local
// buffer it touches, so that the accesses of one buffer happen in program order whatever pipes make them.
void insert_buffer_tokens(Kernel& kernel);

}  // namespace asc
