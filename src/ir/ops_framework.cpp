// Rows of the framework (TPipe, TQue, TBuf, LocalTensorAuto): lowered to
// plain local tensors and flags by passes/lower_framework and
// passes/allocate_local, so no device and no emitter ever sees them.
#include "ir/op_rows.h"
#include "ir/row_rules.h"

namespace asc::rows {
namespace {

bool local_position(int64_t p) { return position_valid(static_cast<uint32_t>(p)) && p != ASC_POS_GM; }

void check_que_create(const OpView& v) {
  if (!local_position(v.op.attr_int(0)) || !local_position(v.op.attr_int(1)))
    type_error(v, "a queue's positions must be local TPositions");
  if (v.op.attr_int(2) < 0) type_error(v, fmt::format("queue depth must not be negative, got {}", v.op.attr_int(2)));
}

void check_tbuf_create(const OpView& v) {
  if (!local_position(v.op.attr_int(0))) type_error(v, "a TBuf's position must be a local TPosition");
}

// The framework object an operand refers to must be created directly (not
// passed through a mutable variable), so the lowering can find it.
void require_created_by(const OpView& v, size_t i, OpCode code, const char* what) {
  const Op* def = v.operand_def(i);
  if (!def || def->code != code) type_error(v, fmt::format("{} must come straight from its constructor", what));
}

void check_init_queue(const OpView& v) {
  require_created_by(v, 1, OpCode::QueCreate, "the queue");
  int64_t num;
  if (!v.operand_const_int(2, &num))
    type_error(v, "the number of buffers (num) must be a compile-time constant such as BUFFER_NUM");
  if (num < 1 || num > 8) type_error(v, fmt::format("num must be 1..8, got {}", num));
}

void check_queue_use(const OpView& v) { require_created_by(v, 0, OpCode::QueCreate, "the queue"); }

void check_queue_tensor_op(const OpView& v) {
  check_dtype_attr(v);
  check_queue_use(v);
}

// enque/deque's optional user positions (-1: none): both or neither, GM on one side.
void check_user_positions(const OpView& v, size_t first) {
  int64_t src = v.op.attr_int(first), dst = v.op.attr_int(first + 1);
  if ((src < 0) != (dst < 0)) type_error(v, "give both src_user_pos and dst_user_pos, or neither");
  if (src < 0) return;
  if (!position_valid(static_cast<uint32_t>(src)) || !position_valid(static_cast<uint32_t>(dst)) ||
      (src == ASC_POS_GM) == (dst == ASC_POS_GM))
    type_error(v, "user positions name a hand-over from or to GM, e.g. (TPosition.GM, TPosition.VECIN)");
}

void check_enque(const OpView& v) {
  check_queue_use(v);
  check_user_positions(v, 0);
}

void check_deque(const OpView& v) {
  check_queue_tensor_op(v);
  check_user_positions(v, 1);
}

void check_pool_create(const OpView& v) {
  if (!local_position(v.op.attr_int(0))) type_error(v, "a TBufPool's position must be a local TPosition");
  if (v.op.attr_int(1) < 1) type_error(v, fmt::format("buf_id_size must be at least 1, got {}", v.op.attr_int(1)));
}

void check_init_buf_pool(const OpView& v) {
  require_created_by(v, 1, OpCode::BufPoolCreate, "the TBufPool");
  if (v.op.operands.size() > 3) require_created_by(v, 3, OpCode::BufPoolCreate, "share_buf");
}

// tque.query's `what`: 0 vacant_in_que, 1 has_tensor_in_que, 2 get_tensor_count_in_que, 3 has_idle_buffer.
void check_query(const OpView& v) {
  check_queue_use(v);
  if (v.op.attr_int(0) < 0 || v.op.attr_int(0) > 3) type_error(v, "unknown queue query");
}

Type query_result(const OpView& v) { return v.op.attr_int(0) == 2 ? int32_result(v) : bool_result(v); }

void check_tbuf_use(const OpView& v) {
  require_created_by(v, 0, OpCode::TBufCreate, "the TBuf");
  check_dtype_attr(v);
}

void check_event_attr(const OpView& v) {
  if (!hard_event_valid(v.op.attr_int(0))) type_error(v, fmt::format("unknown HardEvent {}", v.op.attr_int(0)));
}

Type que_src_tensor(const OpView& v) {
  const Op* q = v.operand_def(0);
  Position p = q && q->code == OpCode::QueCreate ? static_cast<Position>(q->attr_int(0)) : Position::VecIn;
  return Type::local_tensor(static_cast<DType>(v.op.attr_int(0)), p);
}

Type que_dst_tensor(const OpView& v) {
  const Op* q = v.operand_def(0);
  Position p = q && q->code == OpCode::QueCreate ? static_cast<Position>(q->attr_int(1)) : Position::VecIn;
  return Type::local_tensor(static_cast<DType>(v.op.attr_int(0)), p);
}

Type tbuf_tensor(const OpView& v) {
  const Op* b = v.operand_def(0);
  Position p = b && b->code == OpCode::TBufCreate ? static_cast<Position>(b->attr_int(0)) : Position::VecCalc;
  return Type::local_tensor(static_cast<DType>(v.op.attr_int(0)), p);
}

Type pipe_result(const OpView&) { return Type::object(TypeKind::Pipe); }

Type queue_result(const OpView&) { return Type::object(TypeKind::Queue); }

Type tbuf_result(const OpView&) { return Type::object(TypeKind::TBuf); }

// A run-time length is placed when the kernel runs (passes/allocate_local); a constant one must be positive.
void check_local_auto(const OpView& v) {
  check_dtype_attr(v);
  int64_t length;
  const bool known = v.operand_const_int(0, &length);
  if (known && length <= 0) type_error(v, fmt::format("LocalTensorAuto's length must be positive, got {}", length));
  // (Placing it computes its bytes: a length no on-chip memory holds is an error here, not an overflow there.)
  constexpr int64_t kMaxLocalBytes = int64_t{1} << 31;
  const int64_t element = dtype_size(static_cast<DType>(v.op.attr_int(0)));
  if (known && length > kMaxLocalBytes / element)
    throw Error(ASC_ERR_OUT_OF_BOUNDS,
                fmt::format("LocalTensorAuto's length {} ({} bytes each) is more than any on-chip memory holds", length,
                            element),
                v.op.loc);
  int64_t position = v.op.attr_int(static_cast<size_t>(attr_index(v.op.info(), "position")));
  if (!position_valid(static_cast<uint32_t>(position)) || position == static_cast<int64_t>(Position::GM) ||
      position == static_cast<int64_t>(Position::CO2))
    type_error(
        v, fmt::format("LocalTensorAuto's position must be VECCALC, A1, B1, C1, A2, B2, CO1 or C2, got {}", position));
}

Type local_auto_result(const OpView& v) {
  return Type::local_tensor(
      static_cast<DType>(v.op.attr_int(0)),
      static_cast<Position>(v.op.attr_int(static_cast<size_t>(attr_index(v.op.info(), "position")))));
}

}  // namespace

void define_framework_ops(OpTable& t) {
  t.def(OpCode::PipeCreate, "tpipe.create").result(pipe_result).ascendc("AscendC::TPipe").framework();
  t.def(OpCode::QueCreate, "tque.create")
      .attr("src_position")
      .attr("dst_position")
      .attr("depth")
      .attr_optional("name", ASC_ATTR_STRING)
      .result(queue_result)
      .check(check_que_create)
      .ascendc("AscendC::TQueBind")
      .framework();
  t.def(OpCode::TBufCreate, "tbuf.create")
      .attr("position")
      .attr_optional("name", ASC_ATTR_STRING)
      .result(tbuf_result)
      .check(check_tbuf_create)
      .ascendc("AscendC::TBuf")
      .framework();
  t.def(OpCode::InitQueue, "tpipe.init_buffer")
      .operands({K::Pipe, K::Queue, K::IntScalar, K::IntScalar})
      .check(check_init_queue)
      .ascendc("InitBuffer")
      .framework();
  t.def(OpCode::InitTBuf, "tpipe.init_tbuf")
      .operands({K::Pipe, K::TBuf, K::IntScalar})
      .check([](const OpView& v) { require_created_by(v, 1, OpCode::TBufCreate, "the TBuf"); })
      .ascendc("InitBuffer")
      .framework();
  t.def(OpCode::AllocTensor, "tque.alloc_tensor")
      .operands({K::Queue})
      .attr("dtype")
      .result(que_src_tensor)
      .check(check_queue_tensor_op)
      .ascendc("AllocTensor")
      .framework();
  t.def(OpCode::Enque, "tque.enque")
      .operands({K::Queue, K::LocalTensor})
      .attr_default("src_user_pos", -1)
      .attr_default("dst_user_pos", -1)
      .check(check_enque)
      .ascendc("EnQue")
      .framework();
  t.def(OpCode::Deque, "tque.deque")
      .operands({K::Queue})
      .attr("dtype")
      .attr_default("src_user_pos", -1)
      .attr_default("dst_user_pos", -1)
      .result(que_dst_tensor)
      .check(check_deque)
      .ascendc("DeQue")
      .framework();
  t.def(OpCode::FreeTensor, "tque.free_tensor")
      .operands({K::Queue, K::LocalTensor})
      .check(check_queue_use)
      .ascendc("FreeTensor")
      .framework();
  t.def(OpCode::TBufGet, "tbuf.get")
      .operands({K::TBuf, K::IntScalar})
      .optional_from(1)
      .attr("dtype")
      .result(tbuf_tensor)
      .check(check_tbuf_use)
      .ascendc("Get")
      .framework();
  t.def(OpCode::TBufGetWithOffset, "tbuf.get_with_offset")
      .operands({K::TBuf, K::IntScalar, K::IntScalar})
      .attr("dtype")
      .result(tbuf_tensor)
      .check(check_tbuf_use)
      .ascendc("GetWithOffset")
      .framework();
  for (auto [code, name, ascendc, result] :
       {std::tuple{OpCode::AllocEventId, "tpipe.alloc_event_id", "AllocEventID", &int32_result},
        std::tuple{OpCode::FetchEventId, "tpipe.fetch_event_id", "FetchEventID", &int32_result}})
    t.def(code, name)
        .operands({K::Pipe})
        .attr("event")
        .result(result)
        .check(check_event_attr)
        .ascendc(ascendc)
        .framework();
  t.def(OpCode::ReleaseEventId, "tpipe.release_event_id")
      .operands({K::Pipe, K::IntScalar})
      .attr("event")
      .check(check_event_attr)
      .ascendc("ReleaseEventID")
      .framework();
  t.def(OpCode::BufPoolCreate, "tbufpool.create")
      .attr("position")
      .attr("buf_id_size")
      .attr_optional("name", ASC_ATTR_STRING)
      .result(pipe_result)
      .check(check_pool_create)
      .ascendc("AscendC::TBufPool")
      .framework();
  t.def(OpCode::InitBufPool, "tpipe.init_buf_pool")
      .operands({K::Pipe, K::Pipe, K::IntScalar, K::Pipe})
      .optional_from(3)
      .check(check_init_buf_pool)
      .ascendc("InitBufPool")
      .framework();
  t.def(OpCode::BufPoolReset, "tbufpool.reset")
      .operands({K::Pipe})
      .check([](const OpView& v) { require_created_by(v, 0, OpCode::BufPoolCreate, "the TBufPool"); })
      .ascendc("Reset")
      .framework();
  t.def(OpCode::PipeReset, "tpipe.reset")
      .operands({K::Pipe})
      .check([](const OpView& v) { require_created_by(v, 0, OpCode::PipeCreate, "the TPipe"); })
      .ascendc("Reset")
      .framework();
  t.def(OpCode::PipeGetBaseAddr, "tpipe.get_base_addr")
      .operands({K::Pipe})
      .attr("position")
      .result(int32_result)
      .check([](const OpView& v) {
        if (!local_position(v.op.attr_int(0))) type_error(v, "get_base_addr needs a local TPosition");
      })
      .ascendc("GetBaseAddr")
      .framework();
  t.def(OpCode::QueQuery, "tque.query")
      .operands({K::Queue})
      .attr("what")
      .result(query_result)
      .check(check_query)
      .ascendc("VacantInQue")
      .framework();
  t.def(OpCode::FreeAllEvent, "tque.free_all_event")
      .operands({K::Queue})
      .check(check_queue_use)
      .ascendc("FreeAllEvent")
      .framework();
  t.def(OpCode::LocalAuto, "local_tensor.auto")
      .operands({K::IntScalar})
      .attr("dtype")
      .attr_optional("name", ASC_ATTR_STRING)
      .attr_default("double_buffer", 0)  // a load's buffer, in two halves in a paired loop (passes/double_buffer)
      // where it lives: the Unified Buffer, or a cube core's L1 / L0A / L0B / L0C / bias table (cube tiles)
      .attr_default("position", static_cast<int64_t>(Position::VecCalc))
      .result(local_auto_result)
      .check(check_local_auto)
      .framework();
}

}  // namespace asc::rows
