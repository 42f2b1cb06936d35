// The adv library's markers on the Model (rows in ir/ops_adv.cpp): the calls run nothing themselves (their
// expansions do), a precondition that fails stops the launch at the user's call, and the framework's temporary
// buffer is the rest of the Unified Buffer.
#include "sim/handlers.h"

namespace asc::sim {

void exec_AdvCall(Block&, const Op&, const RtValue*, RtValue*) {}
void exec_AdvCallEnd(Block&, const Op&, const RtValue*, RtValue*) {}

void exec_AdvRequire(Block&, const Op& op, const RtValue* in, RtValue*) {
  if (in[0].i == 0) fail(ASC_ERR_INVALID_ARGUMENT, op.loc, "{}", op.attr(0).s);
}

void exec_StackBuffer(Block& b, const Op& op, const RtValue* in, RtValue* out) {
  if (op.operands.empty()) fail(ASC_ERR_INTERNAL, op.loc, "stack_buffer was not given its base by lower_framework");
  const uint64_t ub = b.platform().info.ub_bytes;
  const int64_t base = in[0].i;
  if (base < 0 || static_cast<uint64_t>(base) > ub)
    fail(ASC_ERR_OUT_OF_BOUNDS, op.loc, "the framework's temporary buffer starts at byte {}, outside the {}-byte UB",
         base, ub);
  out->mem = kMemLocal + static_cast<uint32_t>(Memory::UB);
  out->addr = base;
  out->len = ub - static_cast<uint64_t>(base);
}

}  // namespace asc::sim
