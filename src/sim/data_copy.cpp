// data_copy in count mode. The block has already checked and resolved the
// op-table memory effects: effect 0 is the source, effect 1 the destination.
#include <cstring>

#include "sim/handlers.h"

namespace asc::sim {
namespace {

void copy(Block& b, const Op& op, const RtValue* in) {
  size_t bytes = static_cast<size_t>(in[2].i) * dtype_size(b.kernel().type_of(op.operands[0]).dtype);
  std::memmove(b.effect_ptr(1), b.effect_ptr(0), bytes);
}

}  // namespace

void exec_CopyGmToLocal(Block& b, const Op& op, const RtValue* in, RtValue*) { copy(b, op, in); }
void exec_CopyLocalToGm(Block& b, const Op& op, const RtValue* in, RtValue*) { copy(b, op, in); }
void exec_CopyLocalToLocal(Block& b, const Op& op, const RtValue* in, RtValue*) { copy(b, op, in); }

}  // namespace asc::sim
