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

// DataCopyParams: block_count rows of block_len 32-byte blocks, each side with its own gap.
static void copy_blocks(Block& b, const RtValue* in) {
  int64_t rows = in[2].i, len = in[3].i, src_gap = in[4].i, dst_gap = in[5].i;
  for (int64_t r = 0; r < rows; ++r)
    std::memmove(b.effect_ptr(1) + r * (len + dst_gap) * 32, b.effect_ptr(0) + r * (len + src_gap) * 32,
                 static_cast<size_t>(len) * 32);
}

void exec_CopyGmToLocal(Block& b, const Op& op, const RtValue* in, RtValue*) { copy(b, op, in); }
void exec_CopyGmToLocalBlocks(Block& b, const Op&, const RtValue* in, RtValue*) { copy_blocks(b, in); }
void exec_CopyLocalToGmBlocks(Block& b, const Op&, const RtValue* in, RtValue*) { copy_blocks(b, in); }
void exec_CopyLocalToLocalBlocks(Block& b, const Op&, const RtValue* in, RtValue*) { copy_blocks(b, in); }
void exec_CopyLocalToGm(Block& b, const Op& op, const RtValue* in, RtValue*) { copy(b, op, in); }
void exec_CopyLocalToLocal(Block& b, const Op& op, const RtValue* in, RtValue*) { copy(b, op, in); }

}  // namespace asc::sim
