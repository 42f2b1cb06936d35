// The vector core's side of Ascend 950's UB -> L1 (DataCopy from VECIN / VECCALC / VECOUT into A1 / B1 / C1,
// copy_ubuf_to_cbuf on MTE3): block_count rows of block_len 32-byte blocks from this core's Unified Buffer into its
// cube core's L1, each side with its own gap, bytes unchanged (UBToL1连续数据搬运（DataCopy）.md; the data_copy_ub2l1
// sample: the vector cores copy, set a mode-2 flag on MTE3, and the cube core waits for it before its loads).
// The bytes go to the cube core through the CrossCore and land at its cross-core wait (core_delivery.cpp).
#include "sim/cross_core.h"
#include "sim/handlers.h"

namespace asc::sim {
namespace {

void check_path(Block& b, const Op& op, const RtValue* in) {
  const char* what = "data_copy UB -> L1";
  if (b.platform().arch != Arch::C310)
    fail(ASC_ERR_UNSUPPORTED, op.loc,
         "{}: {} (Atlas A2/A3) has no hardware path from the Unified Buffer to L1 (Ascend C's UBToL1 copy goes "
         "through GM there, with the Matmul API's workspace); copy to GM and load it into L1 on the cube core, or "
         "compile for an Ascend950 platform",
         what, b.platform().name);
  KernelType type = b.kernel().options.kernel_type;
  if (type != KernelType::MixAic1_1 && type != KernelType::MixAic1_2)
    fail(ASC_ERR_INVALID_ARGUMENT, op.loc,
         "{} writes the L1 of the vector core's cube core: it needs a mix kernel (KernelType.MIX_AIC_1_1 or "
         "MIX_AIC_1_2), not {}",
         what, kernel_type_name(type));
  if (b.core().kind != CoreKind::AIV)
    fail(ASC_ERR_INVALID_ARGUMENT, op.loc, "{} runs on the vector cores (guard it with asc.ascend_is_aiv())", what);
  if (!b.has_cross())
    fail(ASC_ERR_INTERNAL, op.loc, "{}: the launch runs its cores one after another; this needs them side by side",
         what);
  if (in[0].addr % 32 != 0)
    fail(ASC_ERR_MISALIGNED, op.loc, "{}: the L1 address {} is not 32-byte aligned", what, in[0].addr);
}

// rows of len blocks: the UB side `src_gap` blocks apart (its effect, resolved by the block), L1 `dst_gap` apart
void copy_to_l1(Block& b, const Op& op, const RtValue* in, int64_t rows, int64_t len, int64_t src_gap,
                int64_t dst_gap) {
  DType d = b.kernel().type_of(op.operands[0]).dtype;
  check_path(b, op, in);
  if (rows <= 0 || len <= 0) return;
  uint64_t l1_bytes = memory_bytes(b.platform(), Memory::L1), start = static_cast<uint64_t>(in[0].addr);
  uint64_t tensor_bytes = in[0].len == kUnknownLength ? l1_bytes - start : in[0].len * dtype_size(d);
  auto reach = static_cast<uint64_t>(((rows - 1) * (len + dst_gap) + len) * 32);
  if (reach > tensor_bytes || start + reach > l1_bytes)
    fail(ASC_ERR_OUT_OF_BOUNDS, op.loc,
         "data_copy UB -> L1 writes {} bytes from L1 address {}, but the destination tensor has {} bytes (L1 {})",
         reach, start, tensor_bytes, l1_bytes);
  CoreDelivery delivery;
  delivery.op = &op;
  delivery.memory = Memory::L1;
  delivery.pipe = Pipe::MTE3;
  const uint8_t* src = b.effect_ptr(0);
  for (int64_t r = 0; r < rows; ++r) {
    uint64_t lo = start + static_cast<uint64_t>(r * (len + dst_gap) * 32), hi = lo + static_cast<uint64_t>(len * 32);
    if (!delivery.runs.empty() && delivery.runs.back().second == lo)
      delivery.runs.back().second = hi;  // adjacent rows: one run
    else
      delivery.runs.emplace_back(lo, hi);
    const uint8_t* row = src + r * (len + src_gap) * 32;
    delivery.data.insert(delivery.data.end(), row, row + len * 32);
  }
  bool found = false;
  for (const CoreInstance& c : b.cross().cores())
    if (c.group == b.core().group && c.kind == CoreKind::AIC) {
      delivery.to = c.index;
      found = true;
    }
  if (!found) fail(ASC_ERR_INTERNAL, op.loc, "data_copy UB -> L1: the group has no cube core");
  b.cross().deliver(b.core(), std::move(delivery));
}

}  // namespace

// data_copy(l1, ub, count): count elements, whole 32-byte blocks (a count short of a block copies the blocks it
// fills, as Ascend C rounds it down)
void exec_CopyUbToL1(Block& b, const Op& op, const RtValue* in, RtValue*) {
  int64_t size = dtype_size(b.kernel().type_of(op.operands[0]).dtype);
  copy_to_l1(b, op, in, 1, in[2].i * size / 32, 0, 0);
}

void exec_CopyUbToL1Blocks(Block& b, const Op& op, const RtValue* in, RtValue*) {
  copy_to_l1(b, op, in, in[2].i, in[3].i, in[4].i, in[5].i);
}

}  // namespace asc::sim
