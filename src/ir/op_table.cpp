#include "ir/op_table.h"

#include <array>
#include <cctype>
#include <initializer_list>
#include <iterator>
#include <string>
#include <tuple>
#include <unordered_map>

#include "ir/ir.h"
#include "ir/matmul_api.h"
#include "ir/printf_format.h"

namespace asc {
namespace {

using K = OperandKind;
constexpr uint8_t kAll = 255;  // min_operands placeholder: "all operands required"

// Element dtype sets (bit = DType).
constexpr uint32_t dtype_bits(std::initializer_list<DType> ds) {
  uint32_t bits = 0;
  for (DType d : ds) bits |= 1u << static_cast<unsigned>(d);
  return bits;
}
constexpr uint32_t kARITH = dtype_bits({DType::Float16, DType::Float32, DType::Int16, DType::Int32});
constexpr uint32_t kFLOAT = dtype_bits({DType::Float16, DType::Float32});
constexpr uint32_t kBITS = dtype_bits({DType::Int16, DType::UInt16});
constexpr uint32_t kSHIFT = dtype_bits({DType::Int16, DType::UInt16, DType::Int32, DType::UInt32});
constexpr uint32_t kRELU = dtype_bits({DType::Float16, DType::Float32, DType::Int32});
constexpr uint32_t kADDRELU = dtype_bits({DType::Float16, DType::Float32, DType::Int16});
constexpr uint32_t kCOPY =
    dtype_bits({DType::Float16, DType::Float32, DType::Int16, DType::UInt16, DType::Int32, DType::UInt32});

// ---- shared checks -------------------------------------------------------

[[noreturn]] void type_error(const OpView& v, const std::string& msg) {
  throw Error(ASC_ERR_TYPE, fmt::format("{}: {}", v.op.info().name, msg), v.op.loc);
}

void require_same_dtype(const OpView& v, size_t a, size_t b) {
  DType da = v.operand_type(a).dtype, db = v.operand_type(b).dtype;
  if (da != db)
    type_error(v, fmt::format("operand {} is {} but operand {} is {}; they must have the same dtype", a, dtype_name(da),
                              b, dtype_name(db)));
}

void require_ub_position(const OpView& v, size_t i, const char* role) {
  Position p = v.operand_type(i).position;
  if (!position_is_vector(p))
    type_error(v, fmt::format("{} is a LocalTensor at TPosition.{}; this op needs one in the Unified Buffer "
                              "(VECIN, VECOUT or VECCALC)",
                              role, position_name(p)));
}

// Operand i's dtype must be in the row's dtype set.
void require_row_dtype(const OpView& v, size_t i) {
  const OpInfo& info = v.op.info();
  DType d = v.operand_type(i).dtype;
  if (info.dtypes & (1u << static_cast<unsigned>(d))) return;
  std::string names;
  for (unsigned t = 0; t < ASC_DTYPE_COUNT; ++t)
    if (info.dtypes & (1u << t)) names += std::string(names.empty() ? "" : ", ") + dtype_name(static_cast<DType>(t));
  type_error(v, fmt::format("dtype {} is not supported (supported: {})", dtype_name(d), names));
}

// ---- result rules ----------------------------------------------------------

Type no_result(const OpView&) { return Type::none(); }
Type same_as_operand0(const OpView& v) { return v.operand_type(0); }
Type bool_result(const OpView&) { return Type::scalar(DType::Bool); }
Type int64_result(const OpView&) { return Type::scalar(DType::Int64); }
Type dtype_attr_scalar(const OpView& v) { return Type::scalar(static_cast<DType>(v.op.attr_int(0))); }
Type global_tensor_of_addr(const OpView& v) { return Type::global_tensor(v.operand_type(0).dtype); }
Type local_tensor_from_attrs(const OpView& v) {
  return Type::local_tensor(static_cast<DType>(v.op.attr_int(0)), static_cast<Position>(v.op.attr_int(1)));
}

// ---- op-specific checks ------------------------------------------------------

void check_cross_core(const OpView& v) {
  int64_t mode = v.op.attr_int(0), pipe = v.op.attr_int(1);
  if (mode < 0 || mode > 2)
    type_error(v, fmt::format("mode {} is not 0 (all cores of a kind), 1 (a group's vector cores) or 2 (a group's "
                              "cube and vector cores); mode 4 does not exist on Atlas A2",
                              mode));
  if (!pipe_valid(pipe) || pipe == static_cast<int64_t>(Pipe::S) || pipe == static_cast<int64_t>(Pipe::All))
    type_error(v, fmt::format("pipe {} must be one pipe other than PIPE_S and PIPE_ALL", pipe));
}

// register_matmul in a Matmul kernel: no operands (a kernel built by hand), or the workspace and the 49 fields
// named by `fields`, with the A, B, C and bias MatmulTypes (position, format, dtype, transposed) as attributes.
void check_matmul_server(const OpView& v) {
  if (v.op.operands.empty()) return;
  if (v.op.operands.size() != 1 + kTilingFields)
    type_error(v, fmt::format("takes the workspace and the {} TCubeTiling fields, got {} operands", kTilingFields,
                              v.op.operands.size()));
  // the C member names, written into the emitted source: identifiers only
  size_t names = 1;
  bool start = true, identifiers = true;
  for (char c : v.op.attr(1).s) {
    names += c == ',';
    bool letter = std::isalpha(static_cast<unsigned char>(c)) || c == '_';
    identifiers =
        identifiers && (c == ',' ? !start : letter || (!start && std::isdigit(static_cast<unsigned char>(c))));
    start = c == ',';
  }
  if (start || !identifiers || names != kTilingFields)
    type_error(
        v, fmt::format("`fields` must name the {} TCubeTiling fields (C identifiers), comma-separated", kTilingFields));
  for (size_t m = 0; m < 4; ++m) {
    int64_t position = v.op.attr_int(2 + 4 * m), dtype = v.op.attr_int(4 + 4 * m);
    if (position < 0 || !position_valid(static_cast<uint32_t>(position)))
      type_error(v, fmt::format("unknown TPosition {} in a MatmulType", position));
    if (dtype < 0 || !dtype_valid(static_cast<uint32_t>(dtype)))
      type_error(v, fmt::format("unknown dtype {} in a MatmulType", dtype));
  }
}

void check_matmul_call(const OpView& v) {
  const MatmulApi* api = find_matmul_api(v.op.attr(1).s);
  if (!api) type_error(v, fmt::format("unknown Matmul call '{}'", v.op.attr(1).s));
  if (v.op.operands.size() != api->operands)
    type_error(v, fmt::format("Matmul.{} takes {} operands, got {}", api->name, api->operands, v.op.operands.size()));
}

void check_dtype_attr(const OpView& v) {
  if (!dtype_valid(static_cast<uint32_t>(v.op.attr_int(0))))
    type_error(v, fmt::format("unknown dtype {}", v.op.attr_int(0)));
}

// An integer constant given as a floating-point value must be one an int64 holds (it is truncated to it).
void check_const(const OpView& v) {
  check_dtype_attr(v);
  const Attr& value = v.op.attr(1);
  if (value.kind != ASC_ATTR_FLOAT || dtype_is_float(static_cast<DType>(v.op.attr_int(0)))) return;
  if (!(value.f >= -9223372036854775808.0 && value.f < 9223372036854775808.0))
    type_error(v, fmt::format("value {} is not an integer an int64 can hold", value.f));
}

void check_assign(const OpView& v) {
  const Type& dst = v.operand_type(0);
  if (dst != v.operand_type(1))
    type_error(v, fmt::format("cannot assign a {} to a variable of type {}", v.operand_type(1).str(), dst.str()));
  const Op* def = v.kernel.value_def[v.op.operands[0]];
  if (!def || def->code != OpCode::Var) type_error(v, "the destination must be a value created by `var`");
}

void check_same_scalars(const OpView& v) { require_same_dtype(v, 0, 1); }

void check_int_scalars(const OpView& v) {
  require_same_dtype(v, 0, 1);
  if (!v.operand_type(0).is_int_scalar()) type_error(v, "needs integer operands");
}

void check_float_scalars(const OpView& v) {
  require_same_dtype(v, 0, 1);
  if (!dtype_is_float(v.operand_type(0).dtype)) type_error(v, "needs floating-point operands");
}

void check_for(const OpView& v) {
  require_same_dtype(v, 0, 1);
  require_same_dtype(v, 0, 2);
  int64_t step;
  if (v.operand_const_int(2, &step) && step == 0) type_error(v, "range() step must not be zero");
}

void check_local_create(const OpView& v) {
  check_dtype_attr(v);
  int64_t pos = v.op.attr_int(1);
  if (!position_valid(static_cast<uint32_t>(pos)) || pos == ASC_POS_GM)
    type_error(v, fmt::format("{} is not a local TPosition", pos));
  if (pos == ASC_POS_CO2)
    type_error(v, "TPosition.CO2 is GM on Atlas A2: fixpipe writes L0C results to a GlobalTensor");
  int64_t offset;
  if (v.operand_const_int(0, &offset) && offset < 0)
    throw Error(ASC_ERR_OUT_OF_BOUNDS, fmt::format("LocalTensor address {} is negative", offset), v.op.loc);
  if (v.operand_const_int(0, &offset) && offset % 32 != 0)
    throw Error(ASC_ERR_MISALIGNED,
                fmt::format("LocalTensor address {} is not 32-byte aligned (Unified Buffer addresses must be multiples "
                            "of 32 bytes)",
                            offset),
                v.op.loc);
  int64_t length;
  if (v.operand_const_int(1, &length) && length < 0) type_error(v, "LocalTensor length must not be negative");
}

void require_position(const OpView& v, size_t i, Memory m, const char* role, const char* positions) {
  Position p = v.operand_type(i).position;
  if (v.operand_type(i).kind != TypeKind::LocalTensor || position_memory(p) != m ||
      position_is_vector(p) != (m == Memory::UB))
    type_error(v, fmt::format("{} must be a LocalTensor in {} ({}), not at TPosition.{}", role, memory_name(m),
                              positions, position_name(p)));
}

void check_gm_to_local(const OpView& v) {
  require_same_dtype(v, 0, 1);
  Position p = v.operand_type(0).position;
  if (position_memory(p) != Memory::L1) require_ub_position(v, 0, "the destination");  // GM -> L1 is MTE2 too
}

void check_local_to_gm(const OpView& v) {
  require_same_dtype(v, 0, 1);
  require_ub_position(v, 1, "the source");
}

void check_local_to_local(const OpView& v) {
  require_same_dtype(v, 0, 1);
  require_ub_position(v, 1, "the source");
  Position dst = v.operand_type(0).position;
  if (dst != Position::VecCalc && dst != Position::VecOut)
    type_error(v, fmt::format("a Unified Buffer to Unified Buffer copy writes VECCALC or VECOUT, not TPosition.{}",
                              position_name(dst)));
}

void check_mask_mode(const OpView& v) {
  if (v.op.attr_int(0) < 0 || v.op.attr_int(0) > kMaskFromRegister)
    type_error(v,
               "mask_mode is 0 (continuous: the first mask elements), 1 (bit mask) or 2 (the mask register: "
               "is_set_mask=False)");
}

// The vector instructions (ir/vector_ops.def), both modes: every tensor in
// the Unified Buffer with dst's dtype, which the row's dtype set must contain;
// the scalar of the SCALAR family has that dtype too.
void check_vector(const OpView& v) {
  const OpInfo& info = v.op.info();
  size_t tensors = vector_tensors(info.family);
  static const char* const kRoles[] = {"dst", "src0", "src1"};
  for (size_t i = 0; i < tensors; ++i) {
    require_ub_position(v, i, tensors == 2 && i == 1 ? "src" : kRoles[i]);
    if (i) require_same_dtype(v, 0, i);
  }
  DType d = v.operand_type(0).dtype;
  require_row_dtype(v, 0);
  if (vector_has_scalar(info.family) && v.operand_type(tensors).dtype != d)
    type_error(v, fmt::format("the scalar is {} but the tensors hold {}", dtype_name(v.operand_type(tensors).dtype),
                              dtype_name(d)));
  if (info.mask_mode) check_mask_mode(v);
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

void check_get_value(const OpView& v) { require_ub_position(v, 0, "the tensor"); }

void check_scalar_value_dtype(const OpView& v) {
  if (v.operand_type(2).dtype != v.operand_type(0).dtype)
    type_error(v, fmt::format("the value is {} but the tensor holds {}", dtype_name(v.operand_type(2).dtype),
                              dtype_name(v.operand_type(0).dtype)));
}

void check_set_value(const OpView& v) {
  require_ub_position(v, 0, "the tensor");
  if (v.operand_type(2).dtype != v.operand_type(0).dtype)
    type_error(v, fmt::format("the value is {} but the tensor holds {}", dtype_name(v.operand_type(2).dtype),
                              dtype_name(v.operand_type(0).dtype)));
}

// Cast on Atlas A2: the (src, dst) pairs and the round modes each accepts
// (Ascend C Cast page, "precision conversion" table). Modes: 0 NONE, 1 RINT,
// 2 FLOOR, 3 CEIL, 4 ROUND, 5 TRUNC, 6 ODD.
constexpr uint32_t kNoneOnly = 1u << 0, kRounding = 0x3e, kNoneAndRounding = 0x3f, kAllModes = 0x7f;

uint32_t cast_modes(DType from, DType to) {
  using D = DType;
  struct Pair {
    D from, to;
    uint32_t modes;
  };
  static const Pair kPairs[] = {
      {D::Int8, D::Float16, kNoneOnly},         {D::UInt8, D::Float16, kNoneOnly},
      {D::Int16, D::Float32, kNoneOnly},        {D::Float16, D::Float32, kNoneOnly},
      {D::BFloat16, D::Float32, kNoneOnly},     {D::Int32, D::Int16, kNoneOnly},
      {D::Int32, D::Int64, kNoneOnly},          {D::Int64, D::Int32, kNoneOnly},
      {D::Int16, D::Float16, kNoneAndRounding}, {D::Float16, D::Int8, kNoneAndRounding},
      {D::Float16, D::UInt8, kNoneAndRounding}, {D::Int32, D::Float32, kNoneAndRounding},
      {D::Float16, D::Int16, kRounding},        {D::Float16, D::Int32, kRounding},
      {D::BFloat16, D::Int32, kRounding},       {D::Float32, D::Int16, kRounding},
      {D::Float32, D::Int32, kRounding},        {D::Float32, D::BFloat16, kRounding},
      {D::Float32, D::Float32, kRounding},      {D::Float32, D::Int64, kRounding},
      {D::Int64, D::Float32, kRounding},        {D::Float32, D::Float16, kAllModes},
  };
  for (const Pair& p : kPairs)
    if (p.from == from && p.to == to) return p.modes;
  return 0;
}

// Every dtype some Atlas A2 cast reads or writes (the docs' table lists them).
uint32_t cast_dtypes() {
  uint32_t bits = 0;
  for (unsigned from = 0; from < ASC_DTYPE_COUNT; ++from)
    for (unsigned to = 0; to < ASC_DTYPE_COUNT; ++to)
      if (cast_modes(static_cast<DType>(from), static_cast<DType>(to))) bits |= (1u << from) | (1u << to);
  return bits;
}

void check_cast(const OpView& v) {
  require_ub_position(v, 0, "dst");
  require_ub_position(v, 1, "src");
  DType to = v.operand_type(0).dtype, from = v.operand_type(1).dtype;
  int64_t mode = v.op.attr_int(attr_index(v.op.info(), "round_mode"));
  static const char* const kModes[] = {"CAST_NONE",  "CAST_RINT",  "CAST_FLOOR", "CAST_CEIL",
                                       "CAST_ROUND", "CAST_TRUNC", "CAST_ODD"};
  if (mode < 0 || mode > 6) type_error(v, fmt::format("unknown RoundMode {}", mode));
  uint32_t modes = cast_modes(from, to);
  if (!modes)
    type_error(v, fmt::format("casting {} to {} is not supported on Atlas A2", dtype_name(from), dtype_name(to)));
  if (!(modes & (1u << mode))) {
    std::string ok;
    for (int m = 0; m < 7; ++m)
      if (modes & (1u << m)) ok += std::string(ok.empty() ? "" : ", ") + kModes[m];
    type_error(
        v, fmt::format("{} to {} does not accept {} (accepted: {}){}", dtype_name(from), dtype_name(to), kModes[mode],
                       ok, mode == 0 ? "; on the NPU CAST_NONE here would issue no instruction at all" : ""));
  }
}

// ---- reductions -----------------------------------------------------------------

void check_reduce(const OpView& v) {
  require_ub_position(v, 0, "dst");
  require_ub_position(v, 1, "src");
  require_same_dtype(v, 0, 1);
  require_row_dtype(v, v.op.info().dtype_operand);
}

void check_reduce_count(const OpView& v) {
  check_reduce(v);
  require_ub_position(v, 2, "shared_tmp_buffer");
  int64_t results;
  if (!v.operand_const_int(4, &results) || results < 1 || results > 2)
    type_error(v, "the result count operand is 1 (value) or 2 (value and index)");
}

void check_whole_reduce(const OpView& v) {
  check_reduce(v);
  check_mask_mode(v);
  if (v.op.attrs.size() > 1 && (v.op.attr_int(1) < 0 || v.op.attr_int(1) > 3))
    type_error(v, fmt::format("unknown ReduceOrder {}", v.op.attr_int(1)));
}

// Per-repeat result width of whole_reduce_*: a sum is one element; max/min
// write (value, index) pairs, a value alone, or a 4-byte index (ReduceOrder).
uint32_t whole_reduce_elements(const Op& op, DType d) {
  switch (op.code) {
    case OpCode::WholeReduceSum: return 1;
    case OpCode::BlockReduceSum:
    case OpCode::BlockReduceMax:
    case OpCode::BlockReduceMin: return 8;                   // one per data block; dst_rep_stride counts 8 results
    case OpCode::PairReduceSum: return 128 / dtype_size(d);  // dst_rep_stride counts 128 bytes
    default: break;
  }
  switch (op.attr_int(1)) {
    case 2: return 1;                  // ORDER_ONLY_VALUE
    case 3: return 4 / dtype_size(d);  // ORDER_ONLY_INDEX: a uint32
    default: return 2;                 // ORDER_VALUE_INDEX / ORDER_INDEX_VALUE
  }
}

OpInfo reduce_count_op(OpCode code, const char* name, const char* ascendc) {
  // dst, src, shared_tmp_buffer, count, results (1 or 2, a constant)
  return {code,
          name,
          Pipe::V,
          nullptr,
          {K::LocalTensor, K::LocalTensor, K::LocalTensor, K::IntScalar, K::IntScalar},
          kAll,
          {},
          no_result,
          check_reduce_count,
          {{1, 3, false, false}, {0, 4, true, false}},
          ascendc,
          0,
          false,
          CostKind::Scalar,
          kFLOAT};
}

OpInfo whole_reduce_op(OpCode code, const char* name, const char* ascendc, bool with_order) {
  // dst, src, mask0, mask1, repeat_times, dst_rep_stride, src_blk_stride, src_rep_stride
  OpInfo row{code,
             name,
             Pipe::V,
             nullptr,
             {K::LocalTensor, K::LocalTensor},
             kAll,
             {{"mask_mode", ASC_ATTR_INT, true}},
             no_result,
             check_whole_reduce,
             {},
             ascendc,
             0};
  for (int i = 0; i < 6; ++i) row.operands.push_back(K::IntScalar);
  if (with_order) row.attrs.push_back({"order", ASC_ATTR_INT, false, 0});
  MemEffect src{1, kNoOperand, false, false};
  src.repeat_operand = 4;
  src.blk_stride_operand = 6;
  src.rep_stride_operand = 7;
  src.mask_operand = 2;
  MemEffect dst{0, 4, true, false};
  dst.results_stride_operand = 5;
  dst.mask_operand = 2;  // in counter mode the mask register decides the repeat count
  dst.block_aligned = false;
  row.effects = {src, dst};
  row.result_elements = whole_reduce_elements;
  row.dtypes = kFLOAT;
  row.mask_reg = MaskReg::Operands;
  row.mask_operand = 2;
  return row;
}

// ---- compare / select ----------------------------------------------------------
// compare: dst bit i (little-endian within each byte) = cmp(src0[i], src1[i]);
// select: dst[i] = bit i of sel_mask ? src0[i] : src1[i] (src1 a tensor, mode
// VSEL_TENSOR_TENSOR_MODE, or a scalar, VSEL_TENSOR_SCALAR_MODE).

void check_compare(const OpView& v) {
  require_ub_position(v, 0, "dst");
  require_ub_position(v, 1, "src0");
  require_row_dtype(v, v.op.info().dtype_operand);
  if (!dtype_is_int(v.operand_type(0).dtype)) type_error(v, "dst holds the result bits: use an integer dtype");
  if (v.op.code == OpCode::Compare || v.op.code == OpCode::CompareMask) {
    require_ub_position(v, 2, "src1");
    require_same_dtype(v, 1, 2);
  } else if (v.operand_type(2).dtype != v.operand_type(1).dtype) {
    type_error(v, "the scalar must have src0's dtype");
  }
  int64_t mode = v.op.attr_int(attr_index(v.op.info(), "cmp_mode"));
  if (mode < 0 || mode > 5) type_error(v, fmt::format("unknown CMPMODE {}", mode));
}

void check_select_operands(const OpView& v) {
  require_ub_position(v, 0, "dst");
  require_ub_position(v, 1, "sel_mask");
  require_ub_position(v, 2, "src0");
  require_same_dtype(v, 0, 2);
  require_row_dtype(v, v.op.info().dtype_operand);
  if (!dtype_is_int(v.operand_type(1).dtype)) type_error(v, "sel_mask holds bits: use an integer dtype");
  if (v.op.code == OpCode::Select || v.op.code == OpCode::SelectMask) {
    require_ub_position(v, 3, "src1");
    require_same_dtype(v, 0, 3);
  } else if (v.operand_type(3).dtype != v.operand_type(0).dtype) {
    type_error(v, "the scalar must have dst's dtype");
  }
}

void check_select(const OpView& v);  // with the mask forms below

// operands: dst, src0, src1 (tensor or scalar), count, dst_count (dst elements holding count bits)
OpInfo compare_op(OpCode code, const char* name, bool scalar) {
  OpInfo row{code,
             name,
             Pipe::V,
             nullptr,
             {K::LocalTensor, K::LocalTensor, scalar ? K::AnyScalar : K::LocalTensor, K::IntScalar, K::IntScalar},
             kAll,
             {{"cmp_mode", ASC_ATTR_INT, true}},
             no_result,
             check_compare,
             {},
             scalar ? "AscendC::CompareScalar" : "AscendC::Compare",
             0};
  row.effects = {{1, 3, false, false}};
  if (!scalar) row.effects.push_back({2, 3, false, false});
  row.effects.push_back({0, 4, true, false});
  row.dtypes = kFLOAT;
  row.dtype_operand = 1;  // src0; dst holds bits
  return row;
}

// operands: dst, sel_mask, src0, src1 (tensor or scalar), count, mask_count (sel_mask elements holding count bits)
OpInfo select_op(OpCode code, const char* name, bool scalar) {
  OpInfo row{code,
             name,
             Pipe::V,
             nullptr,
             {K::LocalTensor, K::LocalTensor, K::LocalTensor, scalar ? K::AnyScalar : K::LocalTensor, K::IntScalar,
              K::IntScalar},
             kAll,
             {{"sel_mode", ASC_ATTR_INT, false, scalar ? 1 : 2}},
             no_result,
             check_select,
             {},
             "AscendC::Select",
             0};
  row.effects = {{1, 5, false, false}, {2, 4, false, false}};
  if (!scalar) row.effects.push_back({3, 4, false, false});
  row.effects.push_back({0, 4, true, false});
  row.dtypes = kFLOAT;
  return row;
}

// ---- transpose -------------------------------------------------------------------
// transpose(dst, src): one 16x16 matrix of 2-byte elements. transpose.ext(dst,
// src, tmp, n, c, h, w) with attribute transpose_type: 10 ND2ND_B16 (h = w =
// 16), 11 NCHW2NHWC, 12 NHWC2NCHW (Atlas A2 implements only these three).
constexpr int64_t kTransposeNd2ndB16 = 10, kTransposeNchw2Nhwc = 11, kTransposeNhwc2Nchw = 12;

void check_transpose(const OpView& v) {
  require_ub_position(v, 0, "dst");
  require_ub_position(v, 1, "src");
  require_same_dtype(v, 0, 1);
  require_row_dtype(v, 0);
  if (v.op.code != OpCode::TransposeExt) return;
  require_ub_position(v, 2, "shared_tmp_buffer");
  if (v.operand_type(2).dtype != DType::UInt8) type_error(v, "shared_tmp_buffer must be a LocalTensor of uint8");
  int64_t type = v.op.attr_int(0);
  if (type < kTransposeNd2ndB16 || type > kTransposeNhwc2Nchw)
    throw Error(
        ASC_ERR_UNSUPPORTED,
        fmt::format("transpose: TransposeType {} is not implemented on Atlas A2 (the NPU would do nothing); use "
                    "TRANSPOSE_ND2ND_B16, TRANSPOSE_NCHW2NHWC or TRANSPOSE_NHWC2NCHW",
                    type),
        v.op.loc);
  if (type == kTransposeNd2ndB16 && v.operand_type(0).dtype != DType::UInt16)
    type_error(v, "TRANSPOSE_ND2ND_B16 takes uint16 tensors on Atlas A2");
}

// Scratch bytes the NCHW <-> NHWC transposes use: (c + 2) or (2c + 1) tiles of
// h0 x w0 elements, h0 = 16 (32 for 1-byte types), w0 = 32 / size.
int64_t transpose_tmp_bytes(int64_t type, int64_t c, int64_t size) {
  if (type == kTransposeNd2ndB16) return 0;
  int64_t tile = (size == 1 ? 32 : 16) * (32 / size) * size;
  return (type == kTransposeNchw2Nhwc ? c + 2 : 2 * c + 1) * tile;
}

// Effects: 0 reads src, 1 writes tmp, 2 writes dst. operands: dst, src, tmp, n, c, h, w.
int64_t transpose_extent(const Op& op, const int64_t* in, size_t index, int64_t size) {
  int64_t type = op.attr_int(0), n = in[3], c = in[4], h = in[5], w = in[6];
  if (index == 0) {
    if (n > 65535 || c > 4095 || h * w > 4095)
      fail(ASC_ERR_INVALID_ARGUMENT, op.loc, "transpose: n {} must be <= 65535, c {} <= 4095 and h * w {} <= 4095", n,
           c, h * w);
    if (type == kTransposeNd2ndB16 && (h != 16 || w != 16))
      fail(ASC_ERR_INVALID_ARGUMENT, op.loc,
           "transpose: TRANSPOSE_ND2ND_B16 needs h_size = w_size = 16 (got {} x {}); the NPU would do nothing", h, w);
    if ((h * w * size) % 32 != 0)
      fail(ASC_ERR_MISALIGNED, op.loc, "transpose: h * w * sizeof(T) = {} bytes is not a multiple of 32", h * w * size);
  }
  int64_t elements = type == kTransposeNd2ndB16 ? 256 : n * c * h * w;
  if (index == 1) return elements ? transpose_tmp_bytes(type, c, size) : 0;
  return elements * size;
}

// ---- brcb, gather, gather_mask ---------------------------------------------------

void check_ub_same_dtype(const OpView& v) {
  require_ub_position(v, 0, "dst");
  require_ub_position(v, 1, "src");
  require_same_dtype(v, 0, 1);
  require_row_dtype(v, 0);
}

// brcb operands: dst, src, repeat_times, dst_blk_stride, dst_rep_stride. Effect 0 reads src, 1 writes dst.
int64_t brcb_extent(const Op& op, const int64_t* in, size_t index, int64_t size) {
  int64_t repeats = in[2], blk = in[3], rep = in[4];
  if (repeats > 255 || blk > 65535 || rep > 65535)
    fail(ASC_ERR_INVALID_ARGUMENT, op.loc, "brcb: repeat_times {} must be 0..255 and the strides {}, {} 0..65535",
         repeats, blk, rep);
  if (blk == 0 && repeats > 0)
    fail(ASC_ERR_INVALID_ARGUMENT, op.loc, "brcb: a destination block stride of 0 is undefined on the hardware");
  if (repeats == 0) return 0;
  return index == 0 ? repeats * 8 * size : ((repeats - 1) * rep + 7 * blk) * 32 + 32;
}

void check_gather(const OpView& v) {
  check_ub_same_dtype(v);
  require_ub_position(v, 2, "src_offset");
  if (v.operand_type(2).dtype != DType::UInt32)
    type_error(v, "src_offset must be a LocalTensor of uint32 byte offsets");
  if (v.op.code == OpCode::GatherMaskForm) check_mask_mode(v);
}

// gather.mask operands: dst, src, src_offset, src_base, mask0, mask1,
// repeat_times, dst_rep_stride. Effect 0 reads the offsets, 2 writes dst
// (256 bytes per repeat, dst_rep_stride blocks apart).
int64_t gather_extent(const Op& op, const int64_t* in, size_t index, int64_t size) {
  int64_t repeats = in[6], rep = in[7];
  if (repeats > 255 || rep > 65535)
    fail(ASC_ERR_INVALID_ARGUMENT, op.loc, "gather: repeat_times {} must be 0..255 and dst_rep_stride {} 0..65535",
         repeats, rep);
  if (repeats == 0) return 0;
  return index == 0 ? repeats * (256 / size) * 4 : (repeats - 1) * rep * 32 + 256;
}

void check_gather_mask(const OpView& v) {
  check_ub_same_dtype(v);
  if (v.op.code == OpCode::GatherMask) {
    require_ub_position(v, 2, "src1_pattern");
    DType want = dtype_size(v.operand_type(0).dtype) == 2 ? DType::UInt16 : DType::UInt32;
    if (v.operand_type(2).dtype != want)
      type_error(v, fmt::format("src1_pattern must be a LocalTensor of {} for {} data", dtype_name(want),
                                dtype_name(v.operand_type(0).dtype)));
  } else {
    int64_t pattern;
    if (v.operand_const_int(2, &pattern) && (pattern < 1 || pattern > 7))
      type_error(v, fmt::format("built-in pattern {} is not one of 1..7", pattern));
  }
}

// gather_mask operands: dst, src0, src1_pattern, reduce_mode, mask,
// src0_block_stride, repeat_times, src0_repeat_stride, src1_repeat_stride.
// A repeat takes 256 bytes of src0 (normal) or `mask` elements (reduce_mode).
// Effects: 0 reads src0, then the pattern tensor (gather_mask only), last dst.
int64_t gather_mask_elements_per_repeat(const int64_t* in, int64_t size) { return in[3] ? in[4] : 256 / size; }

int64_t gather_mask_extent(const Op& op, const int64_t* in, size_t index, int64_t size) {
  int64_t per_repeat = gather_mask_elements_per_repeat(in, size), blk = in[5], repeats = in[6];
  if (index == 0 && (repeats > 65535 || in[7] > 65535 || in[8] > 255 || blk > 255))
    fail(ASC_ERR_INVALID_ARGUMENT, op.loc,
         "gather_mask: repeat_times {} and src0_repeat_stride {} must be 0..65535, src0_block_stride {} and "
         "src1_repeat_stride {} 0..255",
         repeats, in[7], blk, in[8]);
  if (repeats == 0 || per_repeat == 0) return 0;
  if (index == 0) return ((repeats - 1) * in[7] + ((per_repeat - 1) / (32 / size)) * blk) * 32 + 32;
  return (repeats - 1) * in[8] * 32 + (per_repeat + 7) / 8;  // the pattern's bits
}

// ---- printf, dump_tensor ------------------------------------------------------------

constexpr size_t kMaxPrintfArgs = 12;  // a pipe queue entry's operands
constexpr size_t kMaxDumpShapeDims = 8;

void check_printf(const OpView& v) {
  std::vector<FormatPiece> pieces;
  try {
    pieces = parse_printf_format(v.op.attr(0).s);
  } catch (const Error& e) {
    throw Error(e.status(), e.what(), v.op.loc);
  }
  size_t arg = 0;
  for (const FormatPiece& p : pieces) {
    if (!p.conversion) continue;
    if (arg >= v.op.operands.size())
      type_error(v, fmt::format("the format has more conversions than the {} values given", v.op.operands.size()));
    DType d = v.operand_type(arg).dtype;
    bool integer = dtype_is_int(d) || d == DType::Bool;
    if (conversion_is_integer(p.conversion) != integer)
      type_error(v, fmt::format("{} (value {}) needs {} value, got {}", p.text, arg + 1,
                                integer ? "a floating-point" : "an integer", dtype_name(d)));
    ++arg;
  }
  if (arg != v.op.operands.size())
    type_error(v, fmt::format("the format has {} conversions but {} values are given", arg, v.op.operands.size()));
}

void check_dump_tensor(const OpView& v) {
  TypeKind k = v.operand_type(0).kind;
  if (k != TypeKind::LocalTensor && k != TypeKind::GlobalTensor)
    type_error(v, "the tensor must be a LocalTensor or a GlobalTensor");
}

// ---- the cube unit -----------------------------------------------------------------
// Layouts (C0 = 32 / sizeof(T) elements, fractals of 16 x C0 = 512 bytes): L1
// holds Nz, L0A Zz, L0B Zn, L0C Nz of 16 x 16 fp32/int32 (1 KiB fractals).

int64_t c0_of(int64_t size) { return 32 / size; }
int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

void check_nd2nz(const OpView& v) {
  require_position(v, 0, Memory::L1, "dst", "A1, B1 or C1");
  require_same_dtype(v, 0, 1);
  require_row_dtype(v, 0);
}

// data_copy.nd2nz operands: dst, src, nd_num, n_value, d_value, src_nd_matrix_stride, src_d_value,
// dst_nz_c0_stride, dst_nz_n_stride, dst_nz_matrix_stride. Effect 0 reads src (GM), 1 writes dst (L1).
int64_t nd2nz_extent(const Op& op, const int64_t* in, size_t index, int64_t size) {
  int64_t nd = in[2], n = in[3], d = in[4];
  if (index == 0 && (nd > 4095 || n > 16384 || d > 65535))
    fail(ASC_ERR_INVALID_ARGUMENT, op.loc,
         "Nd2NzParams: nd_num {} must be <= 4095, n_value {} <= 16384, d_value {} <= 65535", nd, n, d);
  if (nd == 0 || n == 0 || d == 0) return 0;
  int64_t c0 = c0_of(size);
  if (index == 0) return ((nd - 1) * in[5] + (n - 1) * in[6] + d) * size;
  return ((nd - 1) * in[9] + (ceil_div(d, c0) - 1) * in[7] * c0 + (n - 1) * in[8] * c0 + c0) * size;
}

void check_nz2nd(const OpView& v) {
  if (v.operand_type(0).kind != TypeKind::GlobalTensor) type_error(v, "dst must be a GlobalTensor");
  require_ub_position(v, 1, "src");
  require_same_dtype(v, 0, 1);
  require_row_dtype(v, 0);
}

// data_copy.nz2nd operands: dst, src, nd_num, n_value, d_value, src_nd_matrix_stride (256-element units),
// src_n_stride (16-element units), dst_d_stride, dst_nd_matrix_stride (elements). Effect 0 reads src, 1 writes dst.
int64_t nz2nd_extent(const Op& op, const int64_t* in, size_t index, int64_t size) {
  int64_t nd = in[2], n = in[3], d = in[4];
  if (index == 0 && (nd > 4095 || n > 16384 || d > 65535 || d % 16 != 0))
    fail(ASC_ERR_INVALID_ARGUMENT, op.loc,
         "Nz2NdParamsFull: d_value {} must be a multiple of 16 up to 65535, n_value {} <= 16384, nd_num {} <= 4095", d,
         n, nd);
  if (nd == 0 || n == 0 || d == 0) return 0;
  if (index == 0) return ((nd - 1) * in[5] * 256 + ((d - 1) / 16) * in[6] * 16 + (n - 1) * 16 + 16) * size;
  return ((nd - 1) * in[8] + (n - 1) * in[7] + d) * size;
}

void check_load_data(const OpView& v) {
  Position p = v.operand_type(0).position;
  if (p != Position::A2 && p != Position::B2)
    type_error(v, fmt::format("dst must be a LocalTensor at TPosition.A2 (L0A) or B2 (L0B), not {}", position_name(p)));
  require_position(v, 1, Memory::L1, "src", "A1 or B1");
  require_same_dtype(v, 0, 1);
  require_row_dtype(v, 0);
}

// load_data operands: dst, src, start_index, repeat_times, src_stride, sid, dst_gap, if_transpose, addr_mode.
// Fractal i of the source is start_index +/- i * src_stride; of the destination (dst_gap + 1) * i.
int64_t load_data_extent(const Op& op, const int64_t* in, size_t index, int64_t) {
  int64_t start = in[2], repeats = in[3], stride = in[4], gap = in[6];
  if (index == 0 && (repeats > 255 || start > 65535 || stride > 65535 || gap > 65535))
    fail(ASC_ERR_INVALID_ARGUMENT, op.loc,
         "LoadData2DParams: repeat_times {} must be 0..255, start_index {}, src_stride {} and dst_gap {} 0..65535",
         repeats, start, stride, gap);
  if (repeats == 0) return 0;
  if (index == 1) return ((repeats - 1) * (gap + 1) + 1) * 512;
  int64_t last = in[8] ? start - (repeats - 1) * stride : start + (repeats - 1) * stride;
  if (last < 0)
    fail(ASC_ERR_OUT_OF_BOUNDS, op.loc, "load_data: with addr_mode 1 fractal {} - {} x {} is before the tensor", start,
         repeats - 1, stride);
  return (std::max(start, last) + 1) * 512;
}

// load_data_with_transpose operands: dst, src, start_index, repeat_times,
// src_stride, dst_gap, dst_frac_gap, addr_mode. A repeat transposes one square
// (16 x 16 for 2- and 4-byte types, 32 x 32 for 1-byte: 1, 2 and 2 fractals)
// into that many fractals, dst_frac_gap fractals apart.
int64_t transpose_square_bytes(int64_t size) { return size == 2 ? 512 : 1024; }

int64_t load_transpose_extent(const Op& op, const int64_t* in, size_t index, int64_t size) {
  int64_t start = in[2], repeats = in[3], stride = in[4], gap = in[5], frac_gap = in[6];
  if (index == 0 && (repeats > 255 || start > 65535 || stride > 65535 || gap > 65535 || frac_gap > 65535))
    fail(ASC_ERR_INVALID_ARGUMENT, op.loc,
         "LoadData2dTransposeParams: repeat_times {} must be 0..255, the others 0..65535", repeats);
  if (repeats == 0) return 0;
  int64_t fractals = size == 2 ? 1 : 2;
  if (index == 1) return ((repeats - 1) * (gap + 1) + 1) * 512 + (fractals - 1) * (frac_gap + 1) * 512;
  int64_t last = in[7] ? start - (repeats - 1) * stride : start + (repeats - 1) * stride;
  if (last < 0)
    fail(ASC_ERR_OUT_OF_BOUNDS, op.loc,
         "load_data_with_transpose: with addr_mode 1 square {} - {} x {} is before the "
         "tensor",
         start, repeats - 1, stride);
  return (std::max(start, last) + 1) * transpose_square_bytes(size);
}

// mmad: the (dst, fm, filter) dtypes Atlas A2 multiplies.
void check_mmad(const OpView& v) {
  require_position(v, 0, Memory::L0C, "dst", "CO1");
  if (v.operand_type(1).position != Position::A2) type_error(v, "fm (the left matrix) must be at TPosition.A2 (L0A)");
  if (v.operand_type(2).position != Position::B2)
    type_error(v, "filter (the right matrix) must be at TPosition.B2 (L0B)");
  require_same_dtype(v, 1, 2);
  DType c = v.operand_type(0).dtype, a = v.operand_type(1).dtype;
  bool ok = (c == DType::Float32 && (a == DType::Float16 || a == DType::Float32 || a == DType::BFloat16)) ||
            (c == DType::Int32 && a == DType::Int8);
  if (!ok)
    type_error(v, fmt::format("mmad of {} x {} into {} is not supported on Atlas A2 (float32 <- float16, bfloat16 or "
                              "float32; int32 <- int8)",
                              dtype_name(a), dtype_name(a), dtype_name(c)));
  if (v.op.code == OpCode::MmadBias) {
    require_position(v, 3, Memory::BT, "bias", "C2");
    if (v.operand_type(3).dtype != c)
      type_error(v, fmt::format("the bias is {} but dst is {}", dtype_name(v.operand_type(3).dtype), dtype_name(c)));
  }
}

// mmad operands: dst, fm, filter, [bias,] m, n, k, [init, source]. Effects: fm, filter, (bias or dst read), dst.
int64_t mmad_extent(const Op& op, const int64_t* in, size_t index, int64_t size) {
  size_t base = op.code == OpCode::MmadBias ? 4 : 3;
  int64_t m = in[base], n = in[base + 1], k = in[base + 2];
  if (index == 0 && (m > 4095 || n > 4095 || k > 4095))
    fail(ASC_ERR_INVALID_ARGUMENT, op.loc, "MmadParams: m {}, n {} and k {} must be 0..4095", m, n, k);
  if (m == 0 || n == 0 || k == 0) return 0;
  int64_t k1 = ceil_div(k, c0_of(size));
  switch (index) {
    case 0: return ceil_div(m, 16) * k1 * 512;
    case 1: return k1 * ceil_div(n, 16) * 512;
    case 2:
      if (op.code == OpCode::MmadBias) return n * 4;                       // the bias row
      return in[base + 3] ? 0 : ceil_div(m, 16) * ceil_div(n, 16) * 1024;  // accumulate: dst is read too
    default: return ceil_div(m, 16) * ceil_div(n, 16) * 1024;
  }
}

int64_t mmad_work(const Op& op, const int64_t* in, int64_t size) {
  size_t base = op.code == OpCode::MmadBias ? 4 : 3;
  return ceil_div(in[base], 16) * ceil_div(in[base + 1], 16) * ceil_div(in[base + 2], c0_of(size));
}

void check_fixpipe(const OpView& v) {
  if (v.operand_type(0).kind != TypeKind::GlobalTensor) type_error(v, "dst must be a GlobalTensor");
  require_position(v, 1, Memory::L0C, "src", "CO1");
  if (v.op.code != OpCode::FixpipeVectorQuant) return;
  require_position(v, 12, Memory::L1, "cbuf_workspace", "A1 (L1)");
  if (v.operand_type(12).dtype != DType::UInt64) type_error(v, "cbuf_workspace must be a uint64 LocalTensor");
}

// fixpipe operands: dst, src, n_size, m_size, src_stride, dst_stride, quant_pre, deq_scalar, nd_num,
// src_nd_stride, dst_nd_stride, relu_en; attribute nz2nd. Effect 0 reads L0C (4-byte elements), 1 writes dst.
int64_t fixpipe_extent(const Op& op, const int64_t* in, size_t index, int64_t dst_size) {
  int64_t n = in[2], m = in[3], nd = std::max<int64_t>(in[8], 1);
  if (index == 0 && (n > 4095 || m > 65535 || (op.attr_int(0) && m > 8192)))
    fail(ASC_ERR_INVALID_ARGUMENT, op.loc, "FixpipeParams: n_size {} must be <= 4095 and m_size {} <= {}", n, m,
         op.attr_int(0) ? 8192 : 65535);
  if (n == 0 || m == 0) return 0;
  if (index == 2) return n * 8;  // fixpipe.vector_quant: one uint64 quant word per column
  if (index == 0) return ((nd - 1) * in[9] * 256 + ((n - 1) / 16) * in[4] * 16 + (m - 1) * 16 + 16) * 4;
  if (op.attr_int(0)) return ((nd - 1) * in[10] + (m - 1) * in[5] + n) * dst_size;  // NZ2ND
  return (m - 1) * 16 * dst_size + ((n - 1) / 16) * in[5] * 32 + 16 * dst_size;     // NZ2NZ
}

// fixpipe NZ2ND into GM: m_size rows of n_size elements, dst_stride apart (one ND matrix).
GmRows fixpipe_rows(const Op& op, const int64_t* in, int64_t size) {
  if (!op.attr_int(0) || in[8] > 1) return {};
  return {in[3], in[2] * size, in[5] * size};
}

void check_l1_to_bt(const OpView& v) {
  require_position(v, 0, Memory::BT, "dst", "C2");
  require_position(v, 1, Memory::L1, "src", "C1");
  require_same_dtype(v, 0, 1);
}

OpInfo copy_op(OpCode code, const char* name, Pipe pipe, K dst, K src, CheckFn check);

void add_cube_rows(std::vector<OpInfo>& t) {
  std::vector<K> nd2nz{K::LocalTensor, K::GlobalTensor};
  nd2nz.insert(nd2nz.end(), 8, K::IntScalar);
  t.push_back({OpCode::CopyNd2Nz,
               "data_copy.nd2nz",
               Pipe::MTE2,
               nullptr,
               nd2nz,
               kAll,
               {},
               no_result,
               check_nd2nz,
               {{1, kExtentFn, false, false}, {0, kExtentFn, true, false}},
               "AscendC::DataCopy",
               0});
  t.back().effects[0].block_aligned = false;
  t.back().extent = nd2nz_extent;
  t.back().cost = CostKind::GmCopy;
  t.back().dtypes = dtype_bits({DType::Int8, DType::UInt8, DType::Int16, DType::UInt16, DType::Int32, DType::UInt32,
                                DType::Float16, DType::BFloat16, DType::Float32});
  std::vector<K> nz2nd{K::GlobalTensor, K::LocalTensor};
  nz2nd.insert(nz2nd.end(), 7, K::IntScalar);
  t.push_back({OpCode::CopyNz2Nd,
               "data_copy.nz2nd",
               Pipe::MTE3,
               nullptr,
               nz2nd,
               kAll,
               {},
               no_result,
               check_nz2nd,
               {{1, kExtentFn, false, false}, {0, kExtentFn, true, false}},
               "AscendC::DataCopy",
               0});
  t.back().effects[1].block_aligned = false;
  t.back().extent = nz2nd_extent;
  t.back().cost = CostKind::GmCopy;
  t.back().dtypes = dtype_bits(
      {DType::Int16, DType::UInt16, DType::Float16, DType::BFloat16, DType::Int32, DType::UInt32, DType::Float32});
  std::vector<K> load{K::LocalTensor, K::LocalTensor};
  load.insert(load.end(), 7, K::IntScalar);
  t.push_back({OpCode::LoadData2D,
               "load_data",
               Pipe::MTE1,
               nullptr,
               load,
               kAll,
               {},
               no_result,
               check_load_data,
               {{1, kExtentFn, false, false}, {0, kExtentFn, true, false}},
               "AscendC::LoadData",
               0});
  t.back().extent = load_data_extent;
  t.back().cost = CostKind::UbCopy;
  t.back().dtypes = dtype_bits({DType::Int8, DType::UInt8, DType::Int16, DType::UInt16, DType::Int32, DType::UInt32,
                                DType::Float16, DType::BFloat16, DType::Float32});
  std::vector<K> load_t{K::LocalTensor, K::LocalTensor};
  load_t.insert(load_t.end(), 6, K::IntScalar);
  t.push_back({OpCode::LoadDataTranspose,
               "load_data_with_transpose",
               Pipe::MTE1,
               nullptr,
               load_t,
               kAll,
               {},
               no_result,
               check_load_data,
               {{1, kExtentFn, false, false}, {0, kExtentFn, true, false}},
               "AscendC::LoadDataWithTranspose",
               0});
  t.back().extent = load_transpose_extent;
  t.back().cost = CostKind::UbCopy;
  t.back().dtypes = dtype_bits({DType::Int8, DType::UInt8, DType::Int16, DType::UInt16, DType::Float16, DType::BFloat16,
                                DType::Int32, DType::UInt32, DType::Float32});
  for (bool bias : {false, true}) {
    std::vector<K> ops{K::LocalTensor, K::LocalTensor, K::LocalTensor};
    if (bias) ops.push_back(K::LocalTensor);
    ops.insert(ops.end(), bias ? 3 : 5, K::IntScalar);
    uint8_t dst_read = bias ? 3 : 0;
    t.push_back({bias ? OpCode::MmadBias : OpCode::Mmad,
                 bias ? "mmad.bias" : "mmad",
                 Pipe::M,
                 nullptr,
                 ops,
                 kAll,
                 {},
                 no_result,
                 check_mmad,
                 {{1, kExtentFn, false, false},
                  {2, kExtentFn, false, false},
                  {dst_read, kExtentFn, false, false},
                  {0, kExtentFn, true, false}},
                 "AscendC::Mmad",
                 0});
    t.back().extent = mmad_extent;
    t.back().extent_size_operand = 1;
    t.back().work = mmad_work;
    t.back().cost = CostKind::Cube;
    t.back().dtypes = dtype_bits({DType::Float32, DType::Int32});
  }
  std::vector<K> fix{K::GlobalTensor, K::LocalTensor};
  fix.insert(fix.end(), 10, K::IntScalar);
  t.push_back({OpCode::Fixpipe,
               "fixpipe",
               Pipe::FIX,
               nullptr,
               fix,
               kAll,
               {{"nz2nd", ASC_ATTR_INT, false, 1}, {"deq_register", ASC_ATTR_INT, false, 0}},
               no_result,
               check_fixpipe,
               {{1, kExtentFn, false, false}, {0, kExtentFn, true, false}},
               "AscendC::Fixpipe",
               0});
  t.back().effects[1].block_aligned = false;
  t.back().extent = fixpipe_extent;
  t.back().gm_rows = fixpipe_rows;
  t.back().cost = CostKind::GmCopy;
  t.back().word_operand = 7;
  OpInfo vector_quant = t.back();  // the same, with the per-column quant words (operand 12) read from L1
  vector_quant.code = OpCode::FixpipeVectorQuant;
  vector_quant.name = "fixpipe.vector_quant";
  vector_quant.operands.push_back(K::LocalTensor);
  vector_quant.effects.push_back({12, kExtentFn, false, false});
  t.push_back(vector_quant);
  // on the FIX pipe, so that it reaches the copies queued after it and none before
  t.push_back({OpCode::SetFixpipePreQuantFlag,
               "set_fix_pipe_pre_quant_flag",
               Pipe::FIX,
               nullptr,
               {K::IntScalar},
               kAll,
               {},
               no_result,
               nullptr,
               {},
               "AscendC::SetFixpipePreQuantFlag",
               0});
  t.push_back(
      copy_op(OpCode::CopyL1ToBt, "data_copy.l1_to_bt", Pipe::MTE1, K::LocalTensor, K::LocalTensor, check_l1_to_bt));
  t.back().effects = {{1, 2, false, false}, {0, 2, true, false}};
  t.back().cost = CostKind::UbCopy;
}

Type uint64_result(const OpView&) { return Type::scalar(DType::UInt64); }

// ---- mask/repeat forms of cast, reductions, compare, select; CMPMASK ----------------

// A strided effect (the vector mask/repeat form) of tensor `tensor`.
MemEffect strided_effect(uint8_t tensor, bool write, uint8_t mask, uint8_t repeat, uint8_t blk, uint8_t rep) {
  MemEffect e{tensor, kNoOperand, write, false};
  e.mask_operand = mask;
  e.repeat_operand = repeat;
  e.blk_stride_operand = blk;
  e.rep_stride_operand = rep;
  return e;
}

void check_cast_mask(const OpView& v) {
  check_cast(v);
  check_mask_mode(v);
}

void check_reduce_mask(const OpView& v) {
  check_reduce(v);
  require_ub_position(v, 2, "shared_tmp_buffer");
  check_mask_mode(v);
  int64_t results;
  if (!v.operand_const_int(7, &results) || results < 1 || results > 2)
    type_error(v, "the result count operand is 1 (value) or 2 (value and index)");
}

// reduce_*.mask operands: dst, src, tmp, mask0, mask1, repeat_time,
// src_rep_stride, results. Repeat r covers 256 bytes from r * src_rep_stride
// blocks (block stride 1). Effect 0 reads src; 1 writes the results.
int64_t reduce_mask_extent(const Op& op, const int64_t* in, size_t, int64_t) {
  int64_t repeats = in[5], rep = in[6];
  if (repeats > 255 || rep > 65535)
    fail(ASC_ERR_INVALID_ARGUMENT, op.loc, "{}: repeat_time {} must be 0..255 and src_rep_stride {} 0..65535",
         op.info().name, repeats, rep);
  return repeats ? (repeats - 1) * rep * 32 + 256 : 0;
}

void check_compare_mask(const OpView& v) {
  check_compare(v);
  check_mask_mode(v);
}

// compare(.scalar).mask operands: dst, src0, src1 (tensor or scalar), mask0,
// mask1, repeat_times, then block strides and repeat strides (dst first) of
// BinaryRepeatParams / UnaryRepeatParams. Atlas A2 compares all of each
// repeat's elements (the mask is reserved) and writes the N result bits of
// repeat r at dst + r * N / 8 bytes (dst's strides are ignored).
int64_t compare_mask_extent(const Op& op, const int64_t* in, size_t index, int64_t size) {
  bool scalar = op.code == OpCode::CompareScalarMask;
  int64_t repeats = in[5], tensors = scalar ? 2 : 3;
  for (int64_t k = 6; k < 6 + 2 * tensors; ++k)
    if (in[k] > 255)
      fail(ASC_ERR_INVALID_ARGUMENT, op.loc, "{}: strides must be 0..255, got {}", op.info().name, in[k]);
  if (repeats > 255)
    fail(ASC_ERR_INVALID_ARGUMENT, op.loc, "{}: repeat_times {} must be 0..255", op.info().name, repeats);
  if (repeats == 0) return 0;
  size_t sources = scalar ? 1 : 2;
  if (index == sources) return repeats * (256 / size) / 8;  // dst bits
  int64_t blk = in[6 + 1 + index], rep = in[6 + tensors + 1 + index];
  return ((repeats - 1) * rep + 7 * blk) * 32 + 32;
}

// select(.scalar).mask operands: dst, sel_mask, src0, src1 (tensor or
// scalar), mask0, mask1, repeat_times, block strides (dst, src0, src1), repeat
// strides (dst, src0, src1). Attributes: mask_mode, sel_mode (0
// VSEL_CMPMASK_SPR: the first N bits of sel_mask serve every repeat; 1 and 2:
// repeat r uses bits [rN, rN + N)).
void check_select_mask(const OpView& v) {
  check_select(v);
  check_mask_mode(v);
}

void check_select(const OpView& v) {
  check_select_operands(v);
  int64_t mode = v.op.attr_int(attr_index(v.op.info(), "sel_mode"));
  bool scalar = v.op.code == OpCode::SelectScalar || v.op.code == OpCode::SelectScalarMask;
  if (!scalar && mode != 0 && mode != 2)
    type_error(v, "a tensor src1 takes VSEL_CMPMASK_SPR or VSEL_TENSOR_TENSOR_MODE");
  if (scalar && mode != 1) type_error(v, "a scalar src1 takes VSEL_TENSOR_SCALAR_MODE");
}

int64_t select_bits_extent(const Op& op, const int64_t* in, size_t, int64_t size) {
  int64_t repeats = in[6], per_repeat = 256 / size;
  if (repeats > 255)
    fail(ASC_ERR_INVALID_ARGUMENT, op.loc, "{}: repeat_times {} must be 0..255", op.info().name, repeats);
  if (repeats == 0) return 0;
  return (op.attr_int(1) == 0 ? 1 : repeats) * per_repeat / 8;
}

void check_compare_register(const OpView& v) {
  require_ub_position(v, 0, "src0");
  require_ub_position(v, 1, "src1");
  require_same_dtype(v, 0, 1);
  require_row_dtype(v, v.op.info().dtype_operand);
  check_mask_mode(v);
  if (v.op.attr_int(1) < 0 || v.op.attr_int(1) > 5) type_error(v, fmt::format("unknown CMPMODE {}", v.op.attr_int(1)));
}

void check_select_register(const OpView& v) {
  require_ub_position(v, 0, "dst");
  require_ub_position(v, 1, "src0");
  require_ub_position(v, 2, "src1");
  require_same_dtype(v, 0, 1);
  require_same_dtype(v, 0, 2);
  require_row_dtype(v, v.op.info().dtype_operand);
}

void check_cmp_mask_tensor(const OpView& v) { require_ub_position(v, 0, "the tensor"); }

void add_mask_form_rows(std::vector<OpInfo>& t) {
  // cast.mask: dst, src, mask0, mask1, repeat_times, dst_blk, src_blk, dst_rep, src_rep
  t.push_back({OpCode::VCastMask,
               "cast.mask",
               Pipe::V,
               nullptr,
               std::vector<K>{K::LocalTensor, K::LocalTensor},
               kAll,
               {{"mask_mode", ASC_ATTR_INT, true}, {"round_mode", ASC_ATTR_INT, true}},
               no_result,
               check_cast_mask,
               {strided_effect(1, false, 2, 4, 6, 8), strided_effect(0, true, 2, 4, 5, 7)},
               "AscendC::Cast",
               0});
  t.back().operands.insert(t.back().operands.end(), 7, K::IntScalar);
  t.back().mask_reg = MaskReg::Operands;
  t.back().mask_operand = 2;
  t.back().mask_by_wider_dtype = true;
  t.back().dtypes = cast_dtypes();
  for (auto [code, name, ascendc] : {std::tuple{OpCode::ReduceSumMask, "reduce_sum.mask", "AscendC::ReduceSum"},
                                     std::tuple{OpCode::ReduceMaxMask, "reduce_max.mask", "AscendC::ReduceMax"},
                                     std::tuple{OpCode::ReduceMinMask, "reduce_min.mask", "AscendC::ReduceMin"}}) {
    std::vector<K> operands{K::LocalTensor, K::LocalTensor, K::LocalTensor};
    operands.insert(operands.end(), 5, K::IntScalar);
    t.push_back({code,
                 name,
                 Pipe::V,
                 nullptr,
                 operands,
                 kAll,
                 {{"mask_mode", ASC_ATTR_INT, true}},
                 no_result,
                 check_reduce_mask,
                 {{1, kExtentFn, false, false}, {0, 7, true, false}},
                 ascendc,
                 0});
    t.back().extent = reduce_mask_extent;
    t.back().effects[1].block_aligned = false;
    t.back().dtypes = kFLOAT;
    t.back().mask_operand = 3;  // the register is left alone: no MaskReg
  }
  for (bool scalar : {false, true}) {
    std::vector<K> operands{K::LocalTensor, K::LocalTensor, scalar ? K::AnyScalar : K::LocalTensor};
    operands.insert(operands.end(), scalar ? 7 : 9, K::IntScalar);
    std::vector<MemEffect> effects{{1, kExtentFn, false, false}};
    if (!scalar) effects.push_back({2, kExtentFn, false, false});
    effects.push_back({0, kExtentFn, true, false});
    t.push_back({scalar ? OpCode::CompareScalarMask : OpCode::CompareMask,
                 scalar ? "compare_scalar.mask" : "compare.mask",
                 Pipe::V,
                 nullptr,
                 operands,
                 kAll,
                 {{"mask_mode", ASC_ATTR_INT, true}, {"cmp_mode", ASC_ATTR_INT, true}},
                 no_result,
                 check_compare_mask,
                 effects,
                 scalar ? "AscendC::CompareScalar" : "AscendC::Compare",
                 0});
    t.back().extent = compare_mask_extent;
    t.back().extent_size_operand = 1;
    t.back().dtypes = kFLOAT;
    t.back().dtype_operand = 1;
    t.back().mask_operand = 3;  // reserved on Atlas A2: never loaded into the register
  }
  for (bool scalar : {false, true}) {
    std::vector<K> operands{K::LocalTensor, K::LocalTensor, K::LocalTensor, scalar ? K::AnyScalar : K::LocalTensor};
    operands.insert(operands.end(), 9, K::IntScalar);
    std::vector<MemEffect> effects{{1, kExtentFn, false, false}, strided_effect(2, false, 4, 6, 8, 11)};
    if (!scalar) effects.push_back(strided_effect(3, false, 4, 6, 9, 12));
    effects.push_back(strided_effect(0, true, 4, 6, 7, 10));
    t.push_back({scalar ? OpCode::SelectScalarMask : OpCode::SelectMask,
                 scalar ? "select_scalar.mask" : "select.mask",
                 Pipe::V,
                 nullptr,
                 operands,
                 kAll,
                 {{"mask_mode", ASC_ATTR_INT, true}, {"sel_mode", ASC_ATTR_INT, true}},
                 no_result,
                 check_select_mask,
                 effects,
                 "AscendC::Select",
                 0});
    t.back().extent = select_bits_extent;
    t.back().dtypes = kFLOAT;
    t.back().mask_reg = MaskReg::Operands;
    t.back().mask_operand = 4;
  }
  // compare.register: src0, src1, mask0, mask1, repeat (1), src0_blk, src1_blk, src0_rep, src1_rep
  std::vector<K> cmp_operands{K::LocalTensor, K::LocalTensor};
  cmp_operands.insert(cmp_operands.end(), 7, K::IntScalar);
  t.push_back({OpCode::CompareRegister,
               "compare.register",
               Pipe::V,
               nullptr,
               cmp_operands,
               kAll,
               {{"mask_mode", ASC_ATTR_INT, true}, {"cmp_mode", ASC_ATTR_INT, true}},
               no_result,
               check_compare_register,
               {strided_effect(0, false, 2, 4, 5, 7), strided_effect(1, false, 2, 4, 6, 8)},
               "AscendC::Compare",
               0});
  t.back().dtypes = kFLOAT;
  t.back().mask_reg = MaskReg::Operands;
  t.back().mask_operand = 2;
  // select.register: dst, src0, src1, mask0 (0), mask1 (0), repeat_times, blk x3, rep x3 — the mask register
  // and CMPMASK decide
  std::vector<K> sel_operands{K::LocalTensor, K::LocalTensor, K::LocalTensor};
  sel_operands.insert(sel_operands.end(), 9, K::IntScalar);
  t.push_back({OpCode::SelectRegister,
               "select.register",
               Pipe::V,
               nullptr,
               sel_operands,
               kAll,
               {{"mask_mode", ASC_ATTR_INT, true}},
               no_result,
               check_select_register,
               {strided_effect(1, false, 3, 5, 7, 10), strided_effect(2, false, 3, 5, 8, 11),
                strided_effect(0, true, 3, 5, 6, 9)},
               "AscendC::Select",
               0});
  t.back().mask_reg = MaskReg::Operands;
  t.back().mask_operand = 3;
  t.back().dtypes = kFLOAT;
  for (auto [code, name, write] :
       {std::tuple{OpCode::GetCmpMask, "get_cmp_mask", true}, std::tuple{OpCode::SetCmpMask, "set_cmp_mask", false}}) {
    t.push_back({code,
                 name,
                 Pipe::V,
                 nullptr,
                 {K::LocalTensor},
                 kAll,
                 {},
                 no_result,
                 check_cmp_mask_tensor,
                 {{0, kExtentFn, write, false}},
                 write ? "AscendC::GetCmpMask" : "AscendC::SetCmpMask",
                 0});
    t.back().extent = [](const Op&, const int64_t*, size_t, int64_t) -> int64_t { return 16; };  // 128 bits
  }
}

Type tensor_dtype_scalar(const OpView& v) { return Type::scalar(v.operand_type(0).dtype); }

// ---- framework ops -------------------------------------------------------------

bool local_position(int64_t p) { return position_valid(static_cast<uint32_t>(p)) && p != ASC_POS_GM; }

void check_que_create(const OpView& v) {
  if (!local_position(v.op.attr_int(0)) || !local_position(v.op.attr_int(1)))
    type_error(v, "a queue's positions must be local TPositions");
  if (v.op.attr_int(2) < 1) type_error(v, fmt::format("queue depth must be at least 1, got {}", v.op.attr_int(2)));
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
void check_tbuf_use(const OpView& v) {
  require_created_by(v, 0, OpCode::TBufCreate, "the TBuf");
  check_dtype_attr(v);
}
void check_queue_tensor_op(const OpView& v) {
  check_dtype_attr(v);
  check_queue_use(v);
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
Type int32_result(const OpView&) { return Type::scalar(DType::Int32); }

void check_local_auto(const OpView& v) {
  check_dtype_attr(v);
  int64_t length;
  if (!v.operand_const_int(0, &length))
    type_error(v, "LocalTensorAuto's length must be a compile-time constant (asc.ConstExpr or a literal)");
  if (length <= 0) type_error(v, fmt::format("LocalTensorAuto's length must be positive, got {}", length));
}
Type local_auto_result(const OpView& v) {
  return Type::local_tensor(static_cast<DType>(v.op.attr_int(0)), Position::VecCalc);
}

Pipe set_flag_pipe(const Op& op) { return hard_event(op.attr_int(0)).src; }
Pipe wait_flag_pipe(const Op& op) { return hard_event(op.attr_int(0)).dst; }
Pipe barrier_pipe(const Op& op) { return static_cast<Pipe>(op.attr_int(0)); }

CostKind cost_kind(OpCode code) {
  switch (code) {
    case OpCode::For:
    case OpCode::If:
    case OpCode::MatmulCall:  // markers: the expansion they open is charged op by op
    case OpCode::MatmulCallEnd: return CostKind::Structure;
    case OpCode::CopyGmToLocal:
    case OpCode::CopyLocalToGm: return CostKind::GmCopy;
    case OpCode::CopyLocalToLocal:
    case OpCode::CopyLocalToLocalBlocks: return CostKind::UbCopy;
    case OpCode::CopyGmToLocalBlocks:
    case OpCode::CopyLocalToGmBlocks:
    case OpCode::CopyPadGmToLocal:
    case OpCode::CopyPadLocalToGm: return CostKind::GmCopy;
    case OpCode::VCast:
    case OpCode::ReduceSum:
    case OpCode::ReduceMax:
    case OpCode::ReduceMin:
    case OpCode::WholeReduceSum:
    case OpCode::WholeReduceMax:
    case OpCode::WholeReduceMin:
    case OpCode::BlockReduceSum:
    case OpCode::BlockReduceMax:
    case OpCode::BlockReduceMin:
    case OpCode::PairReduceSum:
    case OpCode::Compare:
    case OpCode::CompareScalar:
    case OpCode::Select:
    case OpCode::SelectScalar:
    case OpCode::VCastMask:
    case OpCode::ReduceSumMask:
    case OpCode::ReduceMaxMask:
    case OpCode::ReduceMinMask:
    case OpCode::CompareMask:
    case OpCode::CompareScalarMask:
    case OpCode::SelectMask:
    case OpCode::SelectScalarMask:
    case OpCode::CompareRegister:
    case OpCode::SelectRegister:
    case OpCode::GetCmpMask:
    case OpCode::SetCmpMask:
    case OpCode::Transpose:
    case OpCode::TransposeExt:
    case OpCode::Brcb:
    case OpCode::Gather:
    case OpCode::GatherMaskForm:
    case OpCode::GatherMask:
    case OpCode::GatherMaskPattern: return CostKind::Vector;
    case OpCode::GetValue:
    case OpCode::SetValue:
    case OpCode::GlobalGetValue:
    case OpCode::GlobalSetValue:
    case OpCode::DumpTensor: return CostKind::ScalarMemory;
    case OpCode::SetFlag:
    case OpCode::WaitFlag:
    case OpCode::PipeBarrier: return CostKind::Flag;
    default: return CostKind::Scalar;
  }
}

// ---- the table -----------------------------------------------------------------

const AttrSpec kDTypeAttr{"dtype", ASC_ATTR_INT, true};

OpInfo scalar_binary(OpCode code, const char* name, CheckFn check, ResultFn result = same_as_operand0) {
  return {code, name, Pipe::S, nullptr, {K::AnyScalar, K::AnyScalar}, kAll, {}, result, check, {}, nullptr, 0};
}

struct VecSpec {
  OpCode count, mask;
  const char* name;
  const char* ascendc;
  VecFamily family;
  uint32_t dtypes;
  CostKind cost;
  bool reads_dst;
  const char* doc;
};

constexpr VecSpec kVecSpecs[] = {
#define VEC(family, id, name, ascendc, dtypes, cost, reads_dst, doc)                           \
  {OpCode::id,     OpCode::id##Mask, name, "AscendC::" #ascendc, VecFamily::family, k##dtypes, \
   CostKind::cost, reads_dst,        doc},
#include "ir/vector_ops.def"
#undef VEC
};

// The two rows of one vector instruction. Operands, count mode:
//   tensors (dst first), [scalar], count
// mask mode:
//   tensors, [scalar], mask0, mask1, repeat_times, block stride per tensor, repeat stride per tensor
void add_vector_rows(std::vector<OpInfo>& t, const VecSpec& spec, const std::string& mask_name) {
  uint8_t tensors = static_cast<uint8_t>(vector_tensors(spec.family));
  uint8_t scalars = vector_has_scalar(spec.family) ? 1 : 0;
  std::vector<K> head(tensors, K::LocalTensor);
  if (scalars) head.push_back(K::AnyScalar);
  const uint8_t base = tensors + scalars;

  OpInfo count{spec.count, spec.name, Pipe::V, nullptr, head, kAll, {}, no_result, check_vector, {}, spec.ascendc, 0};
  count.operands.push_back(K::IntScalar);
  for (uint8_t i = 1; i < tensors; ++i) count.effects.push_back({i, base, false, false});
  if (spec.reads_dst) count.effects.push_back({0, base, false, false});
  count.effects.push_back({0, base, true, false});

  OpInfo mask = count;
  mask.code = spec.mask;
  mask.name = mask_name.c_str();
  mask.operands = head;
  for (int i = 0; i < 3 + 2 * tensors; ++i) mask.operands.push_back(K::IntScalar);
  mask.attrs = {{"mask_mode", ASC_ATTR_INT, true}};
  mask.mask_mode = true;
  mask.mask_reg = MaskReg::Operands;
  mask.mask_operand = base;
  count.mask_reg = MaskReg::Resets;
  mask.effects.clear();
  auto strided = [&](uint8_t tensor, bool write) {
    MemEffect e{tensor, kNoOperand, write, false};
    e.repeat_operand = base + 2;
    e.blk_stride_operand = base + 3 + tensor;
    e.rep_stride_operand = base + 3 + tensors + tensor;
    e.mask_operand = base;
    return e;
  };
  for (uint8_t i = 1; i < tensors; ++i) mask.effects.push_back(strided(i, false));
  if (spec.reads_dst) mask.effects.push_back(strided(0, false));
  mask.effects.push_back(strided(0, true));
  for (OpInfo* row : {&count, &mask}) {
    row->family = spec.family;
    row->dtypes = spec.dtypes;
    row->cost = spec.cost;
    row->reads_dst = spec.reads_dst;
    row->doc = spec.doc;
  }
  t.push_back(std::move(count));
  t.push_back(std::move(mask));
}

OpInfo copy_op(OpCode code, const char* name, Pipe pipe, K dst, K src, CheckFn check) {
  return {code,       name, pipe,      nullptr, {dst, src, K::IntScalar},
          kAll,       {},   no_result, check,   {{1, 2, false, true}, {0, 2, true, true}},
          "DataCopy", 0};
}

// data_copy(dst, src, DataCopyParams): operands dst, src, block_count,
// block_len, src_gap, dst_gap (lengths and gaps in 32-byte blocks).
OpInfo copy_blocks_op(OpCode code, const char* name, Pipe pipe, K dst, K src, CheckFn check) {
  OpInfo row = copy_op(code, name, pipe, dst, src, check);
  row.operands = {dst, src, K::IntScalar, K::IntScalar, K::IntScalar, K::IntScalar};
  MemEffect read{1, 2, false, false}, write{0, 2, true, false};
  read.block_len_operand = write.block_len_operand = 3;
  read.gap_operand = 4;
  write.gap_operand = 5;
  row.effects = {read, write};
  // into GM: block_count rows of block_len blocks, dst_gap blocks apart
  row.gm_rows = [](const Op&, const int64_t* in, int64_t) { return GmRows{in[2], in[3] * 32, (in[3] + in[5]) * 32}; };
  return row;
}

// data_copy_pad operands: dst, src, block_count, block_len (bytes), src_stride,
// dst_stride (gaps: bytes on the GM side, 32-byte blocks on the UB side), and
// for GM -> UB also left_pad, right_pad (elements), pad_value, is_pad.
// A UB row is [left pad][block_len bytes][right pad], rounded up to 32 bytes.
int64_t ub_row_blocks(const int64_t* in, int64_t size, bool gm_to_ub) {
  int64_t bytes = in[3] + (gm_to_ub ? (in[6] + in[7]) * size : 0);
  return (bytes + 31) / 32;
}

// Bytes effect `index` spans: effect 0 reads the source, effect 1 writes the destination.
int64_t pad_extent(const Op& op, const int64_t* in, size_t index, int64_t size) {
  bool gm_to_ub = op.code == OpCode::CopyPadGmToLocal;
  int64_t rows = in[2];
  if (rows <= 0 || in[3] <= 0) return 0;
  bool src = index == 0;
  int64_t gap = src ? in[4] : in[5];
  if (src == gm_to_ub) return (rows - 1) * (in[3] + gap) + in[3];  // the GM side: bytes
  int64_t row = ub_row_blocks(in, size, gm_to_ub);
  return ((rows - 1) * (row + gap) + row) * 32;
}

OpInfo copy_pad_op(OpCode code, const char* name, Pipe pipe, K dst, K src, CheckFn check, bool gm_to_ub) {
  OpInfo row = copy_op(code, name, pipe, dst, src, check);
  row.operands = {dst, src, K::IntScalar, K::IntScalar, K::IntScalar, K::IntScalar};
  if (gm_to_ub) row.operands.insert(row.operands.end(), {K::IntScalar, K::IntScalar, K::AnyScalar, K::IntScalar});
  MemEffect read{1, kExtentFn, false, false}, write{0, kExtentFn, true, false};
  read.block_aligned = !gm_to_ub;  // the GM side needs no alignment
  write.block_aligned = gm_to_ub;
  row.effects = {read, write};
  row.ascendc = "DataCopyPad";
  row.extent = pad_extent;
  return row;
}

std::vector<OpInfo> build_table() {
  std::vector<OpInfo> t;
  t.push_back({OpCode::For,
               "for",
               Pipe::S,
               nullptr,
               {K::IntScalar, K::IntScalar, K::IntScalar},
               kAll,
               {},
               same_as_operand0,
               check_for,
               {},
               nullptr,
               1});
  t.push_back({OpCode::If, "if", Pipe::S, nullptr, {K::AnyScalar}, kAll, {}, no_result, nullptr, {}, nullptr, 2});
  t.push_back({OpCode::Const,
               "const",
               Pipe::S,
               nullptr,
               {},
               0,
               {kDTypeAttr, {"value", ASC_ATTR_FLOAT, true}},
               dtype_attr_scalar,
               check_const,
               {},
               nullptr,
               0});
  t.push_back({OpCode::Var, "var", Pipe::S, nullptr, {K::Any}, kAll, {}, same_as_operand0, nullptr, {}, nullptr, 0});
  t.push_back({OpCode::Assign,
               "assign",
               Pipe::S,
               nullptr,
               {K::Any, K::Any},
               kAll,
               {},
               no_result,
               check_assign,
               {},
               nullptr,
               0});
  t.push_back({OpCode::Cast,
               "arith.cast",
               Pipe::S,
               nullptr,
               {K::AnyScalar},
               kAll,
               {kDTypeAttr},
               dtype_attr_scalar,
               check_dtype_attr,
               {},
               nullptr,
               0});
  t.push_back({OpCode::Neg,
               "arith.neg",
               Pipe::S,
               nullptr,
               {K::AnyScalar},
               kAll,
               {},
               same_as_operand0,
               nullptr,
               {},
               nullptr,
               0});
  t.push_back(
      {OpCode::Not, "arith.not", Pipe::S, nullptr, {K::AnyScalar}, kAll, {}, bool_result, nullptr, {}, nullptr, 0});
  t.push_back(scalar_binary(OpCode::AddS, "arith.add", check_same_scalars));
  t.push_back(scalar_binary(OpCode::SubS, "arith.sub", check_same_scalars));
  t.push_back(scalar_binary(OpCode::MulS, "arith.mul", check_same_scalars));
  t.push_back(scalar_binary(OpCode::FloorDivS, "arith.floordiv", check_same_scalars));
  t.push_back(scalar_binary(OpCode::ModS, "arith.mod", check_same_scalars));
  t.push_back(scalar_binary(OpCode::TrueDivS, "arith.truediv", check_float_scalars));
  t.push_back(scalar_binary(OpCode::MinS, "arith.min", check_same_scalars));
  t.push_back(scalar_binary(OpCode::MaxS, "arith.max", check_same_scalars));
  t.push_back(scalar_binary(OpCode::AndS, "arith.and", check_int_scalars));
  t.push_back(scalar_binary(OpCode::OrS, "arith.or", check_int_scalars));
  t.push_back(scalar_binary(OpCode::XorS, "arith.xor", check_int_scalars));
  t.push_back(scalar_binary(OpCode::ShlS, "arith.shl", check_int_scalars));
  t.push_back(scalar_binary(OpCode::ShrS, "arith.shr", check_int_scalars));
  t.push_back(scalar_binary(OpCode::CmpEq, "cmp.eq", check_same_scalars, bool_result));
  t.push_back(scalar_binary(OpCode::CmpNe, "cmp.ne", check_same_scalars, bool_result));
  t.push_back(scalar_binary(OpCode::CmpLt, "cmp.lt", check_same_scalars, bool_result));
  t.push_back(scalar_binary(OpCode::CmpLe, "cmp.le", check_same_scalars, bool_result));
  t.push_back(scalar_binary(OpCode::CmpGt, "cmp.gt", check_same_scalars, bool_result));
  t.push_back(scalar_binary(OpCode::CmpGe, "cmp.ge", check_same_scalars, bool_result));
  t.push_back({OpCode::GetBlockIdx,
               "get_block_idx",
               Pipe::S,
               nullptr,
               {},
               0,
               {},
               int64_result,
               nullptr,
               {},
               "AscendC::GetBlockIdx",
               0});
  t.push_back({OpCode::GetBlockNum,
               "get_block_num",
               Pipe::S,
               nullptr,
               {},
               0,
               {},
               int64_result,
               nullptr,
               {},
               "AscendC::GetBlockNum",
               0});
  for (auto [code, name, ascendc, result] :
       {std::tuple{OpCode::GetSubBlockIdx, "get_sub_block_idx", "AscendC::GetSubBlockIdx", &int64_result},
        std::tuple{OpCode::GetSubBlockNum, "get_sub_block_num", "AscendC::GetSubBlockNum", &int64_result},
        std::tuple{OpCode::AscendIsAic, "ascend_is_aic", "ASCEND_IS_AIC", &bool_result},
        std::tuple{OpCode::AscendIsAiv, "ascend_is_aiv", "ASCEND_IS_AIV", &bool_result}})
    t.push_back({code, name, Pipe::S, nullptr, {}, 0, {}, result, nullptr, {}, ascendc, 0});
  std::vector<K> server_operands{K::GmAddr};  // the workspace, then the TCubeTiling's fields
  server_operands.insert(server_operands.end(), kTilingFields, K::IntScalar);
  std::vector<AttrSpec> server_attrs{{"id", ASC_ATTR_INT, false}, {"fields", ASC_ATTR_STRING, false}};
  static const char* const type_attrs[] = {
      "a_position", "a_format", "a_dtype", "a_trans", "b_position",    "b_format",    "b_dtype",    "b_trans",
      "c_position", "c_format", "c_dtype", "c_trans", "bias_position", "bias_format", "bias_dtype", "bias_trans"};
  for (const char* name : type_attrs) server_attrs.push_back({name, ASC_ATTR_INT, false});
  t.push_back({OpCode::MatmulServer,
               "matmul.server",
               Pipe::S,
               nullptr,
               server_operands,
               0,
               server_attrs,
               no_result,
               check_matmul_server,
               {},
               "REGIST_MATMUL_OBJ",
               0});
  t.push_back({OpCode::MatmulCall,
               "matmul.call",
               Pipe::S,
               nullptr,
               {K::Any, K::Any, K::Any, K::Any},
               0,
               {{"id", ASC_ATTR_INT, true},
                {"api", ASC_ATTR_STRING, true},
                {"flag", ASC_ATTR_INT, false},
                {"sequential", ASC_ATTR_INT, false}},
               no_result,
               check_matmul_call,
               {},
               "",
               0});
  t.push_back({OpCode::MatmulCallEnd, "matmul.call_end", Pipe::S, nullptr, {}, 0, {}, no_result, nullptr, {}, "", 0});
  t.push_back({OpCode::CrossCoreSetFlag,
               "cross_core_set_flag",
               Pipe::S,
               [](const Op& op) { return static_cast<Pipe>(op.attr_int(1)); },
               {K::IntScalar},
               kAll,
               {{"mode", ASC_ATTR_INT, true}, {"pipe", ASC_ATTR_INT, true}},
               no_result,
               check_cross_core,
               {},
               "AscendC::CrossCoreSetFlag",
               0});
  t.push_back({OpCode::CrossCoreWaitFlag,
               "cross_core_wait_flag",
               Pipe::S,
               nullptr,
               {K::IntScalar},
               kAll,
               {{"mode", ASC_ATTR_INT, true}, {"pipe", ASC_ATTR_INT, true}},
               no_result,
               check_cross_core,
               {},
               "AscendC::CrossCoreWaitFlag",
               0});
  t.push_back({OpCode::SyncAll,
               "sync_all",
               Pipe::S,
               nullptr,
               {},
               0,
               {{"aiv_only", ASC_ATTR_INT, false, 1}},
               no_result,
               nullptr,
               {},
               "AscendC::SyncAll",
               0});
  t.push_back({OpCode::GmOffset,
               "gm.offset",
               Pipe::S,
               nullptr,
               {K::GmAddr, K::IntScalar},
               kAll,
               {},
               same_as_operand0,
               nullptr,
               {},
               nullptr,
               0});
  t.push_back({OpCode::GmReinterpret,
               "gm.reinterpret",
               Pipe::S,
               nullptr,
               {K::GmAddr},
               kAll,
               {kDTypeAttr},
               [](const OpView& v) { return Type::gm_addr(static_cast<DType>(v.op.attr_int(0))); },
               check_dtype_attr,
               {},
               "reinterpret_cast",
               0});
  t.push_back({OpCode::GlobalSetBuffer,
               "global_tensor.set_global_buffer",
               Pipe::S,
               nullptr,
               {K::GmAddr, K::IntScalar},
               1,
               {},
               global_tensor_of_addr,
               nullptr,
               {},
               "SetGlobalBuffer",
               0});
  t.push_back({OpCode::GlobalSlice,
               "global_tensor.slice",
               Pipe::S,
               nullptr,
               {K::GlobalTensor, K::IntScalar},
               kAll,
               {},
               same_as_operand0,
               nullptr,
               {},
               nullptr,
               0});
  t.push_back({OpCode::LocalCreate,
               "local_tensor.create",
               Pipe::S,
               nullptr,
               {K::IntScalar, K::IntScalar},
               kAll,
               {kDTypeAttr, {"position", ASC_ATTR_INT, true}, {"name", ASC_ATTR_STRING, false}},
               local_tensor_from_attrs,
               check_local_create,
               {},
               "AscendC::LocalTensor",
               0});
  t.push_back({OpCode::LocalSlice,
               "local_tensor.slice",
               Pipe::S,
               nullptr,
               {K::LocalTensor, K::IntScalar},
               kAll,
               {},
               same_as_operand0,
               nullptr,
               {},
               nullptr,
               0});
  t.push_back(copy_op(OpCode::CopyGmToLocal, "data_copy.gm_to_local", Pipe::MTE2, K::LocalTensor, K::GlobalTensor,
                      check_gm_to_local));
  t.push_back(copy_op(OpCode::CopyLocalToGm, "data_copy.local_to_gm", Pipe::MTE3, K::GlobalTensor, K::LocalTensor,
                      check_local_to_gm));
  t.push_back(copy_op(OpCode::CopyLocalToLocal, "data_copy.local_to_local", Pipe::V, K::LocalTensor, K::LocalTensor,
                      check_local_to_local));
  t.push_back(copy_blocks_op(OpCode::CopyGmToLocalBlocks, "data_copy.gm_to_local.blocks", Pipe::MTE2, K::LocalTensor,
                             K::GlobalTensor, check_gm_to_local));
  t.push_back(copy_blocks_op(OpCode::CopyLocalToGmBlocks, "data_copy.local_to_gm.blocks", Pipe::MTE3, K::GlobalTensor,
                             K::LocalTensor, check_local_to_gm));
  t.push_back(copy_blocks_op(OpCode::CopyLocalToLocalBlocks, "data_copy.local_to_local.blocks", Pipe::V, K::LocalTensor,
                             K::LocalTensor, check_local_to_local));
  t.push_back(copy_pad_op(OpCode::CopyPadGmToLocal, "data_copy_pad.gm_to_local", Pipe::MTE2, K::LocalTensor,
                          K::GlobalTensor, check_gm_to_local, true));
  t.push_back(copy_pad_op(OpCode::CopyPadLocalToGm, "data_copy_pad.local_to_gm", Pipe::MTE3, K::GlobalTensor,
                          K::LocalTensor, check_local_to_gm, false));
  static const std::vector<std::string> mask_names = [] {
    std::vector<std::string> n;
    for (const VecSpec& spec : kVecSpecs) n.push_back(std::string(spec.name) + ".mask");
    return n;
  }();
  for (size_t i = 0; i < std::size(kVecSpecs); ++i) add_vector_rows(t, kVecSpecs[i], mask_names[i]);
  t.push_back({OpCode::SetFlag,
               "set_flag",
               Pipe::S,
               set_flag_pipe,
               {K::IntScalar},
               kAll,
               {{"event", ASC_ATTR_INT, true}},
               no_result,
               check_flag,
               {},
               "AscendC::SetFlag",
               0});
  t.push_back({OpCode::WaitFlag,
               "wait_flag",
               Pipe::S,
               wait_flag_pipe,
               {K::IntScalar},
               kAll,
               {{"event", ASC_ATTR_INT, true}},
               no_result,
               check_flag,
               {},
               "AscendC::WaitFlag",
               0});
  t.push_back({OpCode::PipeBarrier,
               "pipe_barrier",
               Pipe::S,
               barrier_pipe,
               {},
               0,
               {{"pipe", ASC_ATTR_INT, true}},
               no_result,
               check_barrier,
               {},
               "AscendC::PipeBarrier",
               0});
  t.push_back({OpCode::SetVectorMask,
               "set_vector_mask",
               Pipe::S,
               nullptr,
               {K::IntScalar, K::IntScalar},
               kAll,
               {{"mask_mode", ASC_ATTR_INT, true}, kDTypeAttr, {"counter", ASC_ATTR_INT, false, 0}},
               no_result,
               check_set_vector_mask,
               {},
               "AscendC::SetVectorMask",
               0});
  for (auto [code, name, ascendc] : {std::tuple{OpCode::SetMaskCount, "set_mask_count", "AscendC::SetMaskCount"},
                                     std::tuple{OpCode::SetMaskNorm, "set_mask_norm", "AscendC::SetMaskNorm"},
                                     std::tuple{OpCode::ResetMask, "reset_mask", "AscendC::ResetMask"}})
    t.push_back({code, name, Pipe::S, nullptr, {}, 0, {}, no_result, nullptr, {}, ascendc, 0});
  for (auto [code, name, ascendc] : {std::tuple{OpCode::SetAtomicAdd, "set_atomic_add", "AscendC::SetAtomicAdd"},
                                     std::tuple{OpCode::SetAtomicMax, "set_atomic_max", "AscendC::SetAtomicMax"},
                                     std::tuple{OpCode::SetAtomicMin, "set_atomic_min", "AscendC::SetAtomicMin"},
                                     std::tuple{OpCode::SetAtomicType, "set_atomic_type", "AscendC::SetAtomicType"}})
    t.push_back({code, name, Pipe::S, nullptr, {}, 0, {kDTypeAttr}, no_result, check_atomic_dtype, {}, ascendc, 0});
  t.push_back({OpCode::SetAtomicNone,
               "set_atomic_none",
               Pipe::S,
               nullptr,
               {},
               0,
               {},
               no_result,
               nullptr,
               {},
               "AscendC::SetAtomicNone",
               0});
  t.push_back({OpCode::GetValue,
               "local_tensor.get_value",
               Pipe::S,
               nullptr,
               {K::LocalTensor, K::IntScalar},
               kAll,
               {},
               tensor_dtype_scalar,
               check_get_value,
               {{0, kNoOperand, false, false, 1, false}},
               "GetValue",
               0});
  t.push_back({OpCode::SetValue,
               "local_tensor.set_value",
               Pipe::S,
               nullptr,
               {K::LocalTensor, K::IntScalar, K::AnyScalar},
               kAll,
               {},
               no_result,
               check_set_value,
               {{0, kNoOperand, true, false, 1, false}},
               "SetValue",
               0});
  t.push_back({OpCode::GlobalGetValue,
               "global_tensor.get_value",
               Pipe::S,
               nullptr,
               {K::GlobalTensor, K::IntScalar},
               kAll,
               {},
               tensor_dtype_scalar,
               nullptr,
               {{0, kNoOperand, false, false, 1, false}},
               "GetValue",
               0});
  t.push_back({OpCode::GlobalSetValue,
               "global_tensor.set_value",
               Pipe::S,
               nullptr,
               {K::GlobalTensor, K::IntScalar, K::AnyScalar},
               kAll,
               {},
               no_result,
               check_scalar_value_dtype,
               {{0, kNoOperand, true, false, 1, false}},
               "SetValue",
               0});
  t.push_back({OpCode::VCast,
               "cast",
               Pipe::V,
               nullptr,
               {K::LocalTensor, K::LocalTensor, K::IntScalar},
               kAll,
               {{"round_mode", ASC_ATTR_INT, true}},
               no_result,
               check_cast,
               {{1, 2, false, false}, {0, 2, true, false}},
               "AscendC::Cast",
               0});
  t.back().mask_reg = MaskReg::Resets;
  t.back().dtypes = cast_dtypes();
  t.push_back(reduce_count_op(OpCode::ReduceSum, "reduce_sum", "AscendC::ReduceSum"));
  t.push_back(reduce_count_op(OpCode::ReduceMax, "reduce_max", "AscendC::ReduceMax"));
  t.push_back(reduce_count_op(OpCode::ReduceMin, "reduce_min", "AscendC::ReduceMin"));
  t.push_back(whole_reduce_op(OpCode::WholeReduceSum, "whole_reduce_sum", "AscendC::WholeReduceSum", false));
  t.push_back(whole_reduce_op(OpCode::WholeReduceMax, "whole_reduce_max", "AscendC::WholeReduceMax", true));
  t.push_back(whole_reduce_op(OpCode::WholeReduceMin, "whole_reduce_min", "AscendC::WholeReduceMin", true));
  t.push_back(whole_reduce_op(OpCode::BlockReduceSum, "block_reduce_sum", "AscendC::BlockReduceSum", false));
  t.push_back(whole_reduce_op(OpCode::BlockReduceMax, "block_reduce_max", "AscendC::BlockReduceMax", false));
  t.push_back(whole_reduce_op(OpCode::BlockReduceMin, "block_reduce_min", "AscendC::BlockReduceMin", false));
  t.push_back(whole_reduce_op(OpCode::PairReduceSum, "pair_reduce_sum", "AscendC::PairReduceSum", false));
  t.push_back(compare_op(OpCode::Compare, "compare", false));
  t.push_back(compare_op(OpCode::CompareScalar, "compare_scalar", true));
  t.push_back(select_op(OpCode::Select, "select", false));
  t.push_back(select_op(OpCode::SelectScalar, "select_scalar", true));
  t[t.size() - 2].mask_reg = t.back().mask_reg = MaskReg::Resets;
  add_mask_form_rows(t);
  t.push_back({OpCode::Transpose,
               "transpose",
               Pipe::V,
               nullptr,
               {K::LocalTensor, K::LocalTensor},
               kAll,
               {},
               no_result,
               check_transpose,
               {{1, kNoOperand, false, false}, {0, kNoOperand, true, false}},
               "AscendC::Transpose",
               0});
  t.back().effects[0].count_operand = t.back().effects[1].count_operand = kExtentFn;
  t.back().extent = [](const Op&, const int64_t*, size_t, int64_t size) { return 256 * size; };
  t.back().dtypes = dtype_bits({DType::Int16, DType::UInt16, DType::Float16});
  t.push_back({OpCode::TransposeExt,
               "transpose.ext",
               Pipe::V,
               nullptr,
               {K::LocalTensor, K::LocalTensor, K::LocalTensor, K::IntScalar, K::IntScalar, K::IntScalar, K::IntScalar},
               kAll,
               {{"transpose_type", ASC_ATTR_INT, true}},
               no_result,
               check_transpose,
               {{1, kExtentFn, false, false}, {2, kExtentFn, true, false}, {0, kExtentFn, true, false}},
               "AscendC::Transpose",
               0});
  t.back().extent = transpose_extent;
  t.back().dtypes = dtype_bits({DType::Int8, DType::UInt8, DType::Int16, DType::UInt16, DType::Float16, DType::Int32,
                                DType::UInt32, DType::Float32});
  const uint32_t kBitsDtypes = dtype_bits(
      {DType::Int16, DType::UInt16, DType::Float16, DType::BFloat16, DType::Int32, DType::UInt32, DType::Float32});
  t.push_back({OpCode::Brcb,
               "brcb",
               Pipe::V,
               nullptr,
               {K::LocalTensor, K::LocalTensor, K::IntScalar, K::IntScalar, K::IntScalar},
               kAll,
               {},
               no_result,
               check_ub_same_dtype,
               {{1, kExtentFn, false, false}, {0, kExtentFn, true, false}},
               "AscendC::Brcb",
               0});
  t.back().extent = brcb_extent;
  t.back().dtypes = kBitsDtypes;
  t.back().mask_reg = MaskReg::ResetsBits;
  MemEffect gathered{1, kDataDependent, false, false};
  gathered.block_aligned = true;
  t.push_back({OpCode::Gather,
               "gather",
               Pipe::V,
               nullptr,
               {K::LocalTensor, K::LocalTensor, K::LocalTensor, K::IntScalar, K::IntScalar},
               kAll,
               {},
               no_result,
               check_gather,
               {{2, 4, false, false}, gathered, {0, 4, true, false}},
               "AscendC::Gather",
               0});
  t.back().dtypes = kBitsDtypes;
  t.back().mask_reg = MaskReg::Resets;
  t.push_back({OpCode::GatherMaskForm,
               "gather.mask",
               Pipe::V,
               nullptr,
               {K::LocalTensor, K::LocalTensor, K::LocalTensor, K::IntScalar, K::IntScalar, K::IntScalar, K::IntScalar,
                K::IntScalar},
               kAll,
               {{"mask_mode", ASC_ATTR_INT, true}},
               no_result,
               check_gather,
               {{2, kExtentFn, false, false}, gathered, {0, kExtentFn, true, false}},
               "AscendC::Gather",
               0});
  t.back().extent = gather_extent;
  t.back().dtypes = kBitsDtypes;
  t.back().mask_reg = MaskReg::Operands;
  t.back().mask_operand = 4;
  for (bool tensor_pattern : {true, false}) {
    MemEffect src0{1, kExtentFn, false, false}, dst{0, kDataDependent, true, false};
    std::vector<MemEffect> effects{src0};
    if (tensor_pattern) effects.push_back({2, kExtentFn, false, false});
    effects.push_back(dst);
    std::vector<K> operands{K::LocalTensor, K::LocalTensor, tensor_pattern ? K::LocalTensor : K::IntScalar};
    operands.insert(operands.end(), 6, K::IntScalar);
    t.push_back({tensor_pattern ? OpCode::GatherMask : OpCode::GatherMaskPattern,
                 tensor_pattern ? "gather_mask" : "gather_mask.pattern",
                 Pipe::V,
                 nullptr,
                 operands,
                 kAll,
                 {},
                 uint64_result,
                 check_gather_mask,
                 effects,
                 "AscendC::GatherMask",
                 0});
    t.back().extent = gather_mask_extent;
    t.back().dtypes = kBitsDtypes & ~dtype_bits({DType::BFloat16});
    t.back().mask_reg = MaskReg::LoadsRaw;
    t.back().mask_operand = 4;
  }
  add_cube_rows(t);
  t.push_back({OpCode::Printf,
               "printf",
               Pipe::S,
               nullptr,
               std::vector<K>(kMaxPrintfArgs, K::AnyScalar),
               0,
               {{"format", ASC_ATTR_STRING, true}},
               no_result,
               check_printf,
               {},
               "AscendC::printf",
               0});
  MemEffect dumped{0, 2, false, false};
  dumped.block_aligned = false;
  std::vector<K> dump_operands{K::Any, K::IntScalar, K::IntScalar};
  dump_operands.insert(dump_operands.end(), kMaxDumpShapeDims, K::IntScalar);  // an optional ShapeInfo's dims
  t.push_back({OpCode::DumpTensor,
               "dump_tensor",
               Pipe::S,
               nullptr,
               dump_operands,
               3,
               {},
               no_result,
               check_dump_tensor,
               {dumped},
               "AscendC::DumpTensor",
               0});
  const AttrSpec name_attr{"name", ASC_ATTR_STRING, false};
  const AttrSpec event_attr{"event", ASC_ATTR_INT, true};
  auto fw = [&](OpInfo row) {
    row.framework = true;
    t.push_back(std::move(row));
  };
  fw({OpCode::PipeCreate, "tpipe.create", Pipe::S, nullptr, {}, 0, {}, pipe_result, nullptr, {}, "AscendC::TPipe", 0});
  fw({OpCode::QueCreate,
      "tque.create",
      Pipe::S,
      nullptr,
      {},
      0,
      {{"src_position", ASC_ATTR_INT, true},
       {"dst_position", ASC_ATTR_INT, true},
       {"depth", ASC_ATTR_INT, true},
       name_attr},
      queue_result,
      check_que_create,
      {},
      "AscendC::TQueBind",
      0});
  fw({OpCode::TBufCreate,
      "tbuf.create",
      Pipe::S,
      nullptr,
      {},
      0,
      {{"position", ASC_ATTR_INT, true}, name_attr},
      tbuf_result,
      check_tbuf_create,
      {},
      "AscendC::TBuf",
      0});
  fw({OpCode::InitQueue,
      "tpipe.init_buffer",
      Pipe::S,
      nullptr,
      {K::Pipe, K::Queue, K::IntScalar, K::IntScalar},
      kAll,
      {},
      no_result,
      check_init_queue,
      {},
      "InitBuffer",
      0});
  fw({OpCode::InitTBuf,
      "tpipe.init_tbuf",
      Pipe::S,
      nullptr,
      {K::Pipe, K::TBuf, K::IntScalar},
      kAll,
      {},
      no_result,
      [](const OpView& v) { require_created_by(v, 1, OpCode::TBufCreate, "the TBuf"); },
      {},
      "InitBuffer",
      0});
  fw({OpCode::AllocTensor,
      "tque.alloc_tensor",
      Pipe::S,
      nullptr,
      {K::Queue},
      kAll,
      {kDTypeAttr},
      que_src_tensor,
      check_queue_tensor_op,
      {},
      "AllocTensor",
      0});
  fw({OpCode::Enque,
      "tque.enque",
      Pipe::S,
      nullptr,
      {K::Queue, K::LocalTensor},
      kAll,
      {},
      no_result,
      check_queue_use,
      {},
      "EnQue",
      0});
  fw({OpCode::Deque,
      "tque.deque",
      Pipe::S,
      nullptr,
      {K::Queue},
      kAll,
      {kDTypeAttr},
      que_dst_tensor,
      check_queue_tensor_op,
      {},
      "DeQue",
      0});
  fw({OpCode::FreeTensor,
      "tque.free_tensor",
      Pipe::S,
      nullptr,
      {K::Queue, K::LocalTensor},
      kAll,
      {},
      no_result,
      check_queue_use,
      {},
      "FreeTensor",
      0});
  fw({OpCode::TBufGet,
      "tbuf.get",
      Pipe::S,
      nullptr,
      {K::TBuf, K::IntScalar},
      1,
      {kDTypeAttr},
      tbuf_tensor,
      check_tbuf_use,
      {},
      "Get",
      0});
  fw({OpCode::TBufGetWithOffset,
      "tbuf.get_with_offset",
      Pipe::S,
      nullptr,
      {K::TBuf, K::IntScalar, K::IntScalar},
      kAll,
      {kDTypeAttr},
      tbuf_tensor,
      check_tbuf_use,
      {},
      "GetWithOffset",
      0});
  fw({OpCode::AllocEventId,
      "tpipe.alloc_event_id",
      Pipe::S,
      nullptr,
      {K::Pipe},
      kAll,
      {event_attr},
      int32_result,
      check_event_attr,
      {},
      "AllocEventID",
      0});
  fw({OpCode::ReleaseEventId,
      "tpipe.release_event_id",
      Pipe::S,
      nullptr,
      {K::Pipe, K::IntScalar},
      kAll,
      {event_attr},
      no_result,
      check_event_attr,
      {},
      "ReleaseEventID",
      0});
  fw({OpCode::FetchEventId,
      "tpipe.fetch_event_id",
      Pipe::S,
      nullptr,
      {K::Pipe},
      kAll,
      {event_attr},
      int32_result,
      check_event_attr,
      {},
      "FetchEventID",
      0});
  fw({OpCode::LocalAuto,
      "local_tensor.auto",
      Pipe::S,
      nullptr,
      {K::IntScalar},
      kAll,
      {kDTypeAttr, name_attr, {"double_buffer", ASC_ATTR_INT, false, 0}},  // passes/double_buffer.cpp
      local_auto_result,
      check_local_auto,
      {},
      nullptr,
      0});

  for (auto& row : t) {
    if (row.min_operands == kAll) row.min_operands = static_cast<uint8_t>(row.operands.size());
    if (row.cost == CostKind::Scalar) row.cost = cost_kind(row.code);
  }
  return t;
}

const std::vector<OpInfo>& table() {
  static const std::vector<OpInfo> t = [] {
    auto rows = build_table();
    // Rows must be in OpCode order and complete; checked once, on first use
    // (test_ir checks it too, so a wrong table never ships).
    if (rows.size() != static_cast<size_t>(kOpCount))
      fail(ASC_ERR_INTERNAL, "op table has {} rows for {} ops", rows.size(), kOpCount);
    for (size_t i = 0; i < rows.size(); ++i)
      if (static_cast<size_t>(rows[i].code) != i)
        fail(ASC_ERR_INTERNAL, "op table row {} ('{}') is out of OpCode order", i, rows[i].name);
    return rows;
  }();
  return t;
}

}  // namespace

const char* operand_kind_name(OperandKind k) {
  switch (k) {
    case K::AnyScalar: return "a scalar";
    case K::IntScalar: return "an integer scalar";
    case K::GmAddr: return "a GM address";
    case K::GlobalTensor: return "a GlobalTensor";
    case K::LocalTensor: return "a LocalTensor";
    case K::Pipe: return "a TPipe";
    case K::Queue: return "a TQue";
    case K::TBuf: return "a TBuf";
    case K::Any: return "a value";
  }
  return "?";
}

bool operand_kind_accepts(OperandKind k, const Type& t) {
  switch (k) {
    case K::AnyScalar: return t.kind == TypeKind::Scalar;
    case K::IntScalar: return t.is_int_scalar();
    case K::GmAddr: return t.kind == TypeKind::GmAddr;
    case K::GlobalTensor: return t.kind == TypeKind::GlobalTensor;
    case K::LocalTensor: return t.kind == TypeKind::LocalTensor;
    case K::Pipe: return t.kind == TypeKind::Pipe;
    case K::Queue: return t.kind == TypeKind::Queue;
    case K::TBuf: return t.kind == TypeKind::TBuf;
    case K::Any: return t.kind != TypeKind::None;
  }
  return false;
}

const Type& OpView::operand_type(size_t i) const { return kernel.type_of(op.operands[i]); }

const Op* OpView::operand_def(size_t i) const { return kernel.value_def[op.operands[i]]; }

bool OpView::operand_const_int(size_t i, int64_t* out) const {
  const Op* def = kernel.value_def[op.operands[i]];
  if (!def || def->code != OpCode::Const) return false;
  const Attr& a = def->attr(1);
  *out = a.kind == ASC_ATTR_INT ? a.i : static_cast<int64_t>(a.f);
  return true;
}

const OpInfo& op_info(OpCode code) { return table()[static_cast<size_t>(code)]; }

const OpInfo* find_op(std::string_view name, const std::vector<Type>& operand_types) {
  if (name == "data_copy" && (operand_types.size() == 3 || operand_types.size() == 6)) {
    bool blocks = operand_types.size() == 6;
    TypeKind dst = operand_types[0].kind, src = operand_types[1].kind;
    if (dst == TypeKind::LocalTensor && src == TypeKind::GlobalTensor)
      return &op_info(blocks ? OpCode::CopyGmToLocalBlocks : OpCode::CopyGmToLocal);
    if (dst == TypeKind::GlobalTensor && src == TypeKind::LocalTensor)
      return &op_info(blocks ? OpCode::CopyLocalToGmBlocks : OpCode::CopyLocalToGm);
    if (dst == TypeKind::LocalTensor && src == TypeKind::LocalTensor && !blocks &&
        operand_types[0].position == Position::C2)
      return &op_info(OpCode::CopyL1ToBt);  // L1 -> the bias table, on MTE1
    if (dst == TypeKind::LocalTensor && src == TypeKind::LocalTensor)
      return &op_info(blocks ? OpCode::CopyLocalToLocalBlocks : OpCode::CopyLocalToLocal);
    return nullptr;
  }
  // The builder looks every op up by name: a hash map, built once, instead of a scan of the whole table.
  static const std::unordered_map<std::string_view, const OpInfo*> by_name = [] {
    std::unordered_map<std::string_view, const OpInfo*> m;
    for (const auto& row : table()) m.emplace(row.name, &row);
    return m;
  }();
  auto it = by_name.find(name);
  return it == by_name.end() ? nullptr : it->second;
}

std::vector<std::string_view> op_names() {
  std::vector<std::string_view> names;
  for (const auto& row : table()) names.emplace_back(row.name);
  names.emplace_back("data_copy");
  return names;
}

Pipe op_pipe(const Op& op) {
  const OpInfo& info = op.info();
  return info.pipe_fn ? info.pipe_fn(op) : info.pipe;
}

bool op_runs_on_scalar_unit(const Op& op) { return op_pipe(op) == Pipe::S && op.code != OpCode::PipeBarrier; }

int attr_index(const OpInfo& info, std::string_view name) {
  for (size_t i = 0; i < info.attrs.size(); ++i)
    if (name == info.attrs[i].name) return static_cast<int>(i);
  return -1;
}

}  // namespace asc
