// Rows of synchronisation and the control registers: flags and barriers
// between pipes, cross-core flags, sync_all, the vector mask register, the
// atomic modes of GM writes.
#include <tuple>

#include "ir/op_rows.h"
#include "ir/row_rules.h"

namespace asc::rows {
namespace {

void check_cross_core(const OpView& v) {
  int64_t mode = v.op.attr_int(0), pipe = v.op.attr_int(1);
  if (mode < 0 || mode > 2)
    type_error(v, fmt::format("mode {} is not 0 (all cores of a kind), 1 (a group's vector cores) or 2 (a group's "
                              "cube and vector cores); mode 4 does not exist on Atlas A2",
                              mode));
  if (!pipe_valid(pipe) || pipe == static_cast<int64_t>(Pipe::S) || pipe == static_cast<int64_t>(Pipe::All))
    type_error(v, fmt::format("pipe {} must be one pipe other than PIPE_S and PIPE_ALL", pipe));
}

// set_vector_mask(length) (mask_mode 0) or (mask_high, mask_low) (mask_mode 1) for elements of `dtype`.
void check_set_vector_mask(const OpView& v) {
  if (v.op.attr_int(0) < 0 || v.op.attr_int(0) > 1)
    type_error(v, "mask_mode is 0 (a length) or 1 (mask_high, mask_low bits)");
  check_dtype_attr(v);
}

// The dtypes the MTE3 / FIX atomic units compute in on Atlas A2.
void check_atomic_dtype(const OpView& v) {
  check_dtype_attr(v);
  auto d = static_cast<DType>(v.op.attr_int(0));
  if (d != DType::Float16 && d != DType::BFloat16 && d != DType::Float32 && d != DType::Int32 && d != DType::Int16 &&
      d != DType::Int8)
    type_error(v, fmt::format("atomic operations work on float16, bfloat16, float32, int32, int16 and int8, not {}",
                              dtype_name(d)));
}

constexpr int64_t kMaxEventId = 8;  // event ids 0..7 on Atlas A2

void check_flag(const OpView& v) {
  if (!hard_event_valid(v.op.attr_int(0))) type_error(v, fmt::format("unknown HardEvent {}", v.op.attr_int(0)));
  int64_t id;
  if (v.operand_const_int(0, &id) && (id < 0 || id >= kMaxEventId))
    type_error(v, fmt::format("event id {} is out of range (0..{})", id, kMaxEventId - 1));
}

void check_barrier(const OpView& v) {
  if (!pipe_valid(v.op.attr_int(0))) type_error(v, fmt::format("unknown pipe {}", v.op.attr_int(0)));
}

// The GM-workspace protocols: an int32 GlobalTensor workspace and an int32 Unified Buffer one.
void check_workspaces(const OpView& v) {
  if (v.operand_type(0).dtype != DType::Int32)
    type_error(v, fmt::format("gm_workspace must be an int32 GlobalTensor, got {}", v.operand_type(0).str()));
  require_ub_position(v, 1, "ub_workspace");
  if (v.operand_type(1).dtype != DType::Int32)
    type_error(v, fmt::format("ub_workspace must be an int32 LocalTensor, got {}", v.operand_type(1).str()));
}

// get_buf / rls_buf: a pipe other than PIPE_ALL, a buffer id in 0..31, mode 0 or 1.
void check_buffer_token(const OpView& v) {
  int64_t pipe = v.op.attr_int(0);
  if (!pipe_valid(pipe) || pipe == static_cast<int64_t>(Pipe::All))
    type_error(v, fmt::format("pipe {} must be one pipe, not PIPE_ALL", pipe));
  int64_t id;
  if (v.operand_const_int(0, &id) && (id < 0 || id >= kBufferTokens))
    type_error(v, fmt::format("buffer id {} is out of range (0..{})", id, kBufferTokens - 1));
  if (v.op.attr_int(1) != 0 && v.op.attr_int(1) != 1) type_error(v, "mode is 0 or 1");
}

Pipe set_flag_pipe(const Op& op) { return hard_event(op.attr_int(0)).src; }

Pipe wait_flag_pipe(const Op& op) { return hard_event(op.attr_int(0)).dst; }

Pipe barrier_pipe(const Op& op) { return static_cast<Pipe>(op.attr_int(0)); }

}  // namespace

void define_sync_ops(OpTable& t) {
  t.def(OpCode::SetFlag, "set_flag")
      .pipe(set_flag_pipe)
      .operands({K::IntScalar})
      .attr("event")
      .check(check_flag)
      .cost(CostKind::Flag)
      .ascendc("AscendC::SetFlag", "{api}<{enum:event}>({0:int32_t});");
  t.def(OpCode::WaitFlag, "wait_flag")
      .pipe(wait_flag_pipe)
      .operands({K::IntScalar})
      .attr("event")
      .check(check_flag)
      .cost(CostKind::Flag)
      .ascendc("AscendC::WaitFlag", "{api}<{enum:event}>({0:int32_t});");
  t.def(OpCode::PipeBarrier, "pipe_barrier")
      .pipe(barrier_pipe)
      .attr("pipe")
      .check(check_barrier)
      .cost(CostKind::Flag)
      .ascendc("AscendC::PipeBarrier", "{api}<{enum:pipe}>();");
  // Ascend 950's buffer tokens (the CCE intrinsics; PyAsc2's insert_bufid_sync wraps every instruction in them on
  // Ascend 910_95): get_buf holds its pipe until the buffer id's earlier holders in program order released it;
  // rls_buf releases it. https://pto-isa.github.io/docs/isa/scalar/ops/pipeline-sync/get-buf/ and rls-buf/. `mode`
  // is passed through: its meaning is not published (docs/synchronisation.md).
  for (auto [code, name, call] :
       {std::tuple{OpCode::GetBuf, "get_buf", "get_buf({enum:pipe}, {0:uint64_t}, {bool:mode});"},
        std::tuple{OpCode::RlsBuf, "rls_buf", "rls_buf({enum:pipe}, {0:uint64_t}, {bool:mode});"}})
    t.def(code, name)
        .pipe(barrier_pipe)
        .operands({K::IntScalar})
        .attr("pipe")
        .attr_default("mode", 0)
        .check(check_buffer_token)
        .cost(CostKind::Flag)
        .ascendc(name, call);  // not AscendC:: functions: the intrinsics themselves
  // between cores: cross_core_set_flag runs on its pipe; the wait holds the scalar unit
  t.def(OpCode::CrossCoreSetFlag, "cross_core_set_flag")
      .pipe([](const Op& op) { return static_cast<Pipe>(op.attr_int(1)); })
      .operands({K::IntScalar})
      .attr("mode")
      .attr("pipe")
      .check(check_cross_core)
      .ascendc("AscendC::CrossCoreSetFlag", "{api}<{attr:mode}, {enum:pipe}>({0:uint16_t});");
  t.def(OpCode::CrossCoreWaitFlag, "cross_core_wait_flag")
      .operands({K::IntScalar})
      .attr("mode")
      .attr("pipe")
      .check(check_cross_core)
      .ascendc("AscendC::CrossCoreWaitFlag", "{api}<{attr:mode}, {enum:pipe}>({0:uint16_t});");
  t.def(OpCode::SyncAll, "sync_all")
      .attr_default("aiv_only", 1)
      .ascendc("AscendC::SyncAll", "{api}<{bool:aiv_only}>();");
  // Between blocks through a GM workspace, the scalar unit polling it (pipe_barrier(PIPE_ALL) around): IBSet /
  // IBWait (atlasascendc_api_07_0202/0203: a slot of 32 bytes per (event, block), "number of cores * 32 bytes *
  // eventID + blockIdx * 32 bytes", zero-initialised), NotifyNextBlock / WaitPreBlock (blockNum * 32 bytes of GM,
  // blockNum * 32 + 32 of UB) and the software SyncAll (blockNum * 32 bytes of each; vector cores only). The
  // workspace is read and written through data-dependent effects the handlers check (sim/gm_sync_ops.cpp).
  for (auto [code, name, api] : {std::tuple{OpCode::IbSet, "ib_set", "AscendC::IBSet"},
                                 std::tuple{OpCode::IbWait, "ib_wait", "AscendC::IBWait"}})
    t.def(code, name)
        .operands({K::GlobalTensor, K::LocalTensor, K::IntScalar, K::IntScalar})
        .attr_default("aiv_only", 1)
        .check(check_workspaces)
        .reads(0, Span::data_dependent())
        .writes(0, Span::data_dependent())
        .writes(1, Span::data_dependent())
        .cost(CostKind::ScalarMemory)
        .ascendc(api, "{api}<{bool:aiv_only}>({0}, {1}, {2:int32_t}, {3:int32_t});");
  for (auto [code, name, api] : {std::tuple{OpCode::NotifyNextBlock, "notify_next_block", "AscendC::NotifyNextBlock"},
                                 std::tuple{OpCode::WaitPreBlock, "wait_pre_block", "AscendC::WaitPreBlock"}})
    t.def(code, name)
        .operands({K::GlobalTensor, K::LocalTensor})
        .check(check_workspaces)
        .reads(0, Span::data_dependent())
        .writes(0, Span::data_dependent())
        .writes(1, Span::data_dependent())
        .cost(CostKind::ScalarMemory)
        .ascendc(api, "{api}({0}, {1});");
  t.def(OpCode::SyncAllSoft, "sync_all.soft")
      .operands({K::GlobalTensor, K::LocalTensor, K::IntScalar})
      .check(check_workspaces)
      .reads(0, Span::data_dependent())
      .writes(0, Span::data_dependent())
      .writes(1, Span::data_dependent())
      .cost(CostKind::ScalarMemory)
      .ascendc("AscendC::SyncAll", "{api}<true>({0}, {1}, {2:int32_t});");
  // set_vector_mask(length) (mask_mode 0) or (mask_high, mask_low) (mask_mode 1) for elements of `dtype`, in the
  // normal or counter mode: hand-spelled, its arguments depend on the attributes
  t.def(OpCode::SetVectorMask, "set_vector_mask")
      .operands({K::IntScalar, K::IntScalar})
      .attr("mask_mode")
      .attr("dtype")
      .attr_default("counter", 0)
      .check(check_set_vector_mask)
      .ascendc("AscendC::SetVectorMask");
  for (auto [code, name, ascendc] : {std::tuple{OpCode::SetMaskCount, "set_mask_count", "AscendC::SetMaskCount"},
                                     std::tuple{OpCode::SetMaskNorm, "set_mask_norm", "AscendC::SetMaskNorm"},
                                     std::tuple{OpCode::ResetMask, "reset_mask", "AscendC::ResetMask"},
                                     std::tuple{OpCode::SetAtomicNone, "set_atomic_none", "AscendC::SetAtomicNone"}})
    t.def(code, name).ascendc(ascendc, "{api}();");
  for (auto [code, name, ascendc] : {std::tuple{OpCode::SetAtomicAdd, "set_atomic_add", "AscendC::SetAtomicAdd"},
                                     std::tuple{OpCode::SetAtomicMax, "set_atomic_max", "AscendC::SetAtomicMax"},
                                     std::tuple{OpCode::SetAtomicMin, "set_atomic_min", "AscendC::SetAtomicMin"},
                                     std::tuple{OpCode::SetAtomicType, "set_atomic_type", "AscendC::SetAtomicType"}})
    t.def(code, name).attr("dtype").check(check_atomic_dtype).ascendc(ascendc, "{api}<{T:dtype}>();");
}

}  // namespace asc::rows
