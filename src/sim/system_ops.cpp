// The scalar unit's system queries and controls (rows in ir/ops_system.cpp).
#include "sim/handlers.h"
#include "sim/scalar_math.h"

namespace asc::sim {
namespace {

// GetArchVersion reports the architecture as a hex number ("print it as hex to read the version"): 0x220 on the
// dav-c220 rows. No value is published for dav-c310: 0x310 by the same naming, an estimate (docs/model-backend.md).
constexpr int64_t kArchVersionC220 = 0x220, kArchVersionC310 = 0x310;
// The system counter GetSystemCycle reads runs at 50 MHz, whatever the core clock.
constexpr double kSystemCounterGhz = 0.05;
// The Model has no instruction encoding: its program counter is the op's place in the kernel, four bytes an
// instruction, so it grows along the program and tells call sites apart.
constexpr int64_t kInstructionBytes = 4;

// GetStoreAtomicConfig's atomicType codes (0 none; float, half, int16, int32, int8, bfloat16 from 1).
int64_t atomic_type_code(const AtomicMode& mode) {
  if (mode.op == AtomicOp::None) return 0;
  switch (mode.dtype) {
    case DType::Float32: return 1;
    case DType::Float16: return 2;
    case DType::Int16: return 3;
    case DType::Int32: return 4;
    case DType::Int8: return 5;
    case DType::BFloat16: return 6;
    default: return 0;
  }
}

}  // namespace

void exec_GetSystemCycle(Block& b, const Op&, const RtValue*, RtValue* out) {
  double ticks = static_cast<double>(b.timeline().scalar_cycle()) * kSystemCounterGhz / b.platform().info.clock_ghz;
  set_int(*out, DType::Int64, static_cast<int64_t>(ticks));
}

void exec_GetArchVersion(Block& b, const Op&, const RtValue*, RtValue* out) {
  set_int(*out, DType::UInt32, b.platform().arch == Arch::C310 ? kArchVersionC310 : kArchVersionC220);
}

void exec_GetDataBlockSizeInBytes(Block& b, const Op&, const RtValue*, RtValue* out) {
  set_int(*out, DType::Int32, b.platform().info.block_bytes);
}

void exec_GetProgramCounter(Block&, const Op& op, const RtValue*, RtValue* out) {
  set_int(*out, DType::Int64, static_cast<int64_t>(op.index) * kInstructionBytes);
}

void exec_GetTaskRatio(Block& b, const Op&, const RtValue*, RtValue* out) {
  set_int(*out, DType::Int64, b.core().kind == CoreKind::AIV ? b.core().sub_block_num : 1);
}

void exec_Trap(Block& b, const Op& op, const RtValue*, RtValue*) {
  fail(ASC_ERR_RUNTIME, op.loc, "trap: {} stopped at asc.trap() (Ascend C Trap halts the AI Core)", b.label());
}

void exec_DataSyncBarrier(Block& b, const Op& op, const RtValue*, RtValue*) {
  b.data_sync_barrier(op, static_cast<MemBarrier>(op.attr_int(0)));
}

void exec_InitSocState(Block& b, const Op&, const RtValue*, RtValue*) {
  b.atomic_mode() = AtomicMode{};
  b.mask_register() = VectorMaskReg{};
}

// Max and min (SetAtomicMax / SetAtomicMin) past the documented sum (0): 1 and 2.
void exec_GetStoreAtomicConfig(Block& b, const Op& op, const RtValue*, RtValue* out) {
  const AtomicMode& mode = b.atomic_mode();
  int64_t atomic_op = mode.op == AtomicOp::Max ? 1 : mode.op == AtomicOp::Min ? 2 : 0;
  set_int(*out, DType::Int16, op.attr_int(0) == 0 ? atomic_type_code(mode) : atomic_op);
}

void exec_SetHcclContext(Block& b, const Op& op, const RtValue* in, RtValue*) {
  b.hccl_context(op.attr_int(0)) = in[0];
}

// The Model has no HCCL: a context exists only when the kernel set one.
void exec_GetHcclContext(Block& b, const Op& op, const RtValue*, RtValue* out) {
  const std::optional<RtValue>& context = b.hccl_context(op.attr_int(0));
  if (!context)
    fail(ASC_ERR_RUNTIME, op.loc,
         "get_hccl_context({}): no context for communication domain {}: the Model runs no HCCL, so only a "
         "context the kernel set with set_hccl_context exists",
         op.attr_int(0), op.attr_int(0));
  *out = *context;
}

void exec_CheckLocalMemoryIa(Block& b, const Op& op, const RtValue* in, RtValue*) {
  const int64_t index = in[0].i, start = in[1].i, end = in[2].i;
  if (index < 0 || index > 3)
    fail(ASC_ERR_INVALID_ARGUMENT, op.loc, "check_local_memory_ia: enable_bit {} is not 0..3", index);
  if (start < 0 || start > 65535 || end < 0 || end > 65535)
    fail(ASC_ERR_INVALID_ARGUMENT, op.loc,
         "check_local_memory_ia: start_addr {} and end_addr {} are 32-byte units in 0..65535", start, end);
  uint32_t kinds = 0;
  for (int k = 0; k < 6; ++k) kinds |= (in[3 + k].i != 0 ? 1u : 0u) << k;
  if (in[9].i == 0) kinds = 0;  // is_enable false: the register is off
  b.watch_unified_buffer(static_cast<size_t>(index), static_cast<uint64_t>(start) * 32, static_cast<uint64_t>(end) * 32,
                         kinds);
}

void exec_GetSysWorkspace(Block&, const Op& op, const RtValue*, RtValue*) {
  fail(ASC_ERR_RUNTIME, op.loc,
       "get_sys_workspace: no system workspace: the Model's launches provide none (on the board the framework "
       "does); pass a GM buffer argument and call asc.set_sys_workspace(it) first");
}

}  // namespace asc::sim
