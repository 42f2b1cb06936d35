// set_flag / wait_flag / pipe_barrier (and get_buf / rls_buf, buffer_tokens.cpp) change how the block schedules its
// pipe queues and what the race checker and timeline know, so Block
// implements all three; these handlers are never called.
#include "sim/handlers.h"

namespace asc::sim {

void exec_SetFlag(Block&, const Op& op, const RtValue*, RtValue*) {
  fail(ASC_ERR_INTERNAL, op.loc, "set_flag is scheduled by the block");
}

void exec_WaitFlag(Block&, const Op& op, const RtValue*, RtValue*) {
  fail(ASC_ERR_INTERNAL, op.loc, "wait_flag is scheduled by the block");
}

void exec_GetBuf(Block&, const Op& op, const RtValue*, RtValue*) {
  fail(ASC_ERR_INTERNAL, op.loc, "get_buf is scheduled by the block");
}

void exec_RlsBuf(Block&, const Op& op, const RtValue*, RtValue*) {
  fail(ASC_ERR_INTERNAL, op.loc, "rls_buf is scheduled by the block");
}

void exec_PipeBarrier(Block&, const Op& op, const RtValue*, RtValue*) {
  fail(ASC_ERR_INTERNAL, op.loc, "pipe_barrier is scheduled by the block");
}

}  // namespace asc::sim
