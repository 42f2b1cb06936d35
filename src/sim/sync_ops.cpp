// set_flag / wait_flag / pipe_barrier. Waiting and barriers change how the
// block schedules its pipe queues, so Block implements them; set_flag is an
// ordinary op that marks the flag when its source pipe reaches it.
#include "sim/handlers.h"

namespace asc::sim {

void exec_SetFlag(Block& b, const Op& op, const RtValue* in, RtValue*) { b.set_flag(op, op.attr_int(0), in[0].i); }

void exec_WaitFlag(Block&, const Op& op, const RtValue*, RtValue*) {
  fail(ASC_ERR_INTERNAL, op.loc, "wait_flag is scheduled by the block");
}

void exec_PipeBarrier(Block&, const Op& op, const RtValue*, RtValue*) {
  fail(ASC_ERR_INTERNAL, op.loc, "pipe_barrier is scheduled by the block");
}

}  // namespace asc::sim
