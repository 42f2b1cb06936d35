// data_copy in count mode. The block has already checked and resolved the
// op-table memory effects: effect 0 is the source, effect 1 the destination.
#include <cstring>

#include "sim/copy_bytes.h"
#include "sim/handlers.h"
#include "sim/scalar_math.h"

namespace asc::sim {
namespace {

// The resolved effects hold the bytes copied: whole 32-byte blocks only.
void copy(Block& b) { b.copy_to_effect(1, b.effect_ptr(0), b.effect_bytes(1)); }

}  // namespace

// DataCopyParams: block_count rows of block_len 32-byte blocks, each side with its own gap.
static void copy_blocks(Block& b, const RtValue* in) {
  int64_t rows = in[2].i, len = in[3].i, src_gap = in[4].i, dst_gap = in[5].i;
  for (int64_t r = 0; r < rows; ++r)
    copy_bytes(b.effect_ptr(1) + r * (len + dst_gap) * 32, b.effect_ptr(0) + r * (len + src_gap) * 32,
               static_cast<size_t>(len) * 32);
}

// data_copy_pad, GM -> UB: each row lands as [left pad][block_len bytes][right
// pad] rounded up to 32 bytes; pads and the rest of the last block take
// pad_value when is_pad, or the pad-value register once set_pad_value set it
// (otherwise the rest of the block repeats the row's first element when there
// are no pads, and is left unwritten otherwise).
static void copy_pad_in(Block& b, const Op& op, const RtValue* in) {
  DType d = b.kernel().type_of(op.operands[0]).dtype;
  int64_t size = dtype_size(d), rows = in[2].i, len = in[3].i, src_gap = in[4].i, dst_gap = in[5].i;
  int64_t left = in[6].i, right = in[7].i;
  bool is_pad = in[9].i != 0;
  if (len % size != 0 || left * size > 32 || right * size > 32)
    fail(ASC_ERR_INVALID_ARGUMENT, op.loc,
         "{}: block_len {} must be a multiple of {} bytes and each pad at most 32 bytes ({} and {} elements)",
         op.info().name, len, size, left, right);
  int64_t row_bytes = ((left + right) * size + len + 31) / 32 * 32;
  uint8_t pad[8];
  store_scalar(pad, d, in[8]);
  // without is_pad the pads take the pad-value register once set_pad_value has set it (its low bytes)
  const PadValueReg& reg = b.pad_value_register();
  if (!is_pad && reg.set) {
    std::memcpy(pad, &reg.bits, 8);
    is_pad = true;
  }
  for (int64_t r = 0; r < rows; ++r) {
    const uint8_t* src = b.effect_ptr(0) + r * (len + src_gap);
    uint8_t* dst = b.effect_ptr(1) + r * (row_bytes + dst_gap * 32);
    std::memmove(dst + left * size, src, static_cast<size_t>(len));
    int64_t used = left * size + len + right * size;
    if (is_pad) {
      for (int64_t k = 0; k < left; ++k) std::memcpy(dst + k * size, pad, size);
      for (int64_t off = left * size + len; off < row_bytes; off += size) std::memcpy(dst + off, pad, size);
    } else if (left == 0 && right == 0) {
      for (int64_t off = used; off < row_bytes; off += size) std::memcpy(dst + off, src, size);
    }
  }
}

// data_copy_pad, UB -> GM: block_len bytes of each UB row (rows start on 32-byte blocks).
static void copy_pad_out(Block& b, const RtValue* in) {
  int64_t rows = in[2].i, len = in[3].i, src_gap = in[4].i, dst_gap = in[5].i;
  int64_t row_blocks = (len + 31) / 32;
  for (int64_t r = 0; r < rows; ++r)
    std::memmove(b.effect_ptr(1) + r * (len + dst_gap), b.effect_ptr(0) + r * (row_blocks + src_gap) * 32,
                 static_cast<size_t>(len));
}

void exec_CopyGmToLocal(Block& b, const Op&, const RtValue*, RtValue*) { copy(b); }
void exec_CopyPadGmToLocal(Block& b, const Op& op, const RtValue* in, RtValue*) { copy_pad_in(b, op, in); }
void exec_CopyPadLocalToGm(Block& b, const Op&, const RtValue* in, RtValue*) { copy_pad_out(b, in); }
void exec_CopyGmToLocalBlocks(Block& b, const Op&, const RtValue* in, RtValue*) { copy_blocks(b, in); }
void exec_CopyLocalToGmBlocks(Block& b, const Op&, const RtValue* in, RtValue*) { copy_blocks(b, in); }
void exec_CopyLocalToLocalBlocks(Block& b, const Op&, const RtValue* in, RtValue*) { copy_blocks(b, in); }
void exec_CopyLocalToGm(Block& b, const Op&, const RtValue*, RtValue*) { copy(b); }
void exec_CopyLocalToLocal(Block& b, const Op&, const RtValue*, RtValue*) { copy(b); }

}  // namespace asc::sim
