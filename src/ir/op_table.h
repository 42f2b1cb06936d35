// The op table: one row per IR op, read by the builder, verifier, printer and
// simulator (and later the sync inserter, sanitizer, timing model and Ascend C
// emitter). Nothing about an op is described twice.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ir/pipes.h"
#include "ir/types.h"
#include "ir/vector_cost.h"

namespace asc {

enum class OpCode : uint16_t {
#define ASC_OP(id, name) id,
#include "ir/ops.def"
#undef ASC_OP
  Count
};
constexpr int kOpCount = static_cast<int>(OpCode::Count);

// What an operand must be. The op's check function adds finer rules
// (matching dtypes, positions).
enum class OperandKind : uint8_t { AnyScalar, IntScalar, GmAddr, GlobalTensor, LocalTensor, Pipe, Queue, TBuf, Any };
const char* operand_kind_name(OperandKind k);
bool operand_kind_accepts(OperandKind k, const Type& t);

struct AttrSpec {
  const char* name;
  asc_attr_kind_t kind;
  bool required;
  int64_t default_int = 0;
};

// A byte range an op reads or writes: `count` elements of the tensor operand
// `tensor`, starting at its address, where the element count is the value of
// the integer operand `count_operand`. Effects are listed reads first; the
// simulator resolves them to checked pointers in this order.
constexpr uint8_t kNoOperand = 255;
constexpr uint8_t kExtentFn = 254;  // MemEffect::count_operand: the row's extent_fn gives the byte count
// MemEffect::count_operand: which elements depends on data (gather's offsets,
// gather_mask's kept count); the handler checks and records each access.
constexpr uint8_t kDataDependent = 253;

// A memory effect is either contiguous (`count` elements from the tensor's
// start plus `offset`) or, for the vector mask/repeat mode, strided: per
// repeat (repeat_operand of them) 8 data blocks of 32 bytes, block b of
// repeat r at (r * rep_stride + b * blk_stride) blocks, only blocks holding
// an element the mask (operands mask_operand, mask_operand+1) selects.
struct MemEffect {
  uint8_t tensor;
  uint8_t count_operand;  // kNoOperand: one element
  bool write;
  bool whole_blocks;                    // the byte length must be a multiple of the 32-byte block
  uint8_t offset_operand = kNoOperand;  // element offset from the tensor's start, if any
  bool block_aligned = true;            // the start must be 32-byte aligned (vector and copy ops)
  uint8_t repeat_operand = kNoOperand;  // set: the strided form
  uint8_t blk_stride_operand = kNoOperand;
  uint8_t rep_stride_operand = kNoOperand;
  uint8_t mask_operand = kNoOperand;
  // set: the DataCopyParams form — count_operand rows of block_len_operand
  // 32-byte blocks each, gap_operand blocks apart
  uint8_t block_len_operand = kNoOperand;
  uint8_t gap_operand = kNoOperand;
  // set: one result per repeat (count_operand repeats), results_stride_operand
  // results apart, each OpInfo::result_elements elements wide
  uint8_t results_stride_operand = kNoOperand;
};

// Vector instruction families (ir/vector_ops.def). FILL: dst and a scalar.
enum class VecFamily : uint8_t { NONE, BINARY, UNARY, SCALAR, FILL };
// The tensor count of a family (dst first), and whether a scalar follows the tensors.
inline size_t vector_tensors(VecFamily f) { return f == VecFamily::BINARY ? 3 : f == VecFamily::FILL ? 1 : 2; }
inline bool vector_has_scalar(VecFamily f) { return f == VecFamily::SCALAR || f == VecFamily::FILL; }

// How an instruction uses the vector mask register. A count-mode instruction
// sets the register itself and leaves it reset (full mask, normal mode); a
// mask-mode one loads its mask operands into it (attr mask_mode 0 or 1) or,
// with is_set_mask=False (mask_mode 2), runs with whatever it holds.
// ResetsBits: a full mask, the mode unchanged (brcb); LoadsRaw: normal mode
// with the mask operand as the low 64 bits (gather_mask).
enum class MaskReg : uint8_t { None, Resets, Operands, ResetsBits, LoadsRaw };
constexpr int64_t kMaskFromRegister = 2;  // the mask_mode attribute of is_set_mask=False

struct Op;
struct Kernel;

// Read-only view of an op under construction, for check/result functions.
struct OpView {
  const Op& op;
  const Kernel& kernel;
  const Type& operand_type(size_t i) const;
  // The value of operand i if it is defined by a `const` op.
  bool operand_const_int(size_t i, int64_t* out) const;
  // The op defining operand i (nullptr for parameters and loop variables).
  const Op* operand_def(size_t i) const;
};

// How the timing model charges an op (see sim/timing.cpp).
// Cube: OpInfo::work gives the count of 16 x 16 x C0 fractal multiplies, one per cycle.
// Cache: a cache-maintenance instruction of the scalar unit, one GM round trip (gm_latency).
// Vector: a head and a cost per 256-byte repeat, from the platform's vector cost table by the row's VecCost family
// and the op's dtypes (target/platform.h).
enum class CostKind : uint8_t { Scalar, GmCopy, UbCopy, Vector, ScalarMemory, Flag, Structure, Cube, Cache };

using CheckFn = void (*)(const OpView&);                  // throws asc::Error (ASC_ERR_TYPE / VERIFY)
using ResultFn = Type (*)(const OpView&);                 // result type, Type::none() if no result
using PipeFn = Pipe (*)(const Op&);                       // pipe that executes this op instance
using ResultElementsFn = uint32_t (*)(const Op&, DType);  // per-repeat result width of a reduction
// Byte span of effect `index` from its tensor's start, for effects with
// count_operand == kExtentFn; element_size is that of operand
// OpInfo::extent_size_operand's dtype (operand 0 unless the row says otherwise).
using ExtentFn = int64_t (*)(const Op&, const int64_t* operands, size_t index, int64_t element_size);
// A GM write made of rows (`count` rows of `bytes`, `stride` bytes apart),
// for the cross-block conflict check; count 0: the effect's whole span.
struct GmRows {
  int64_t count = 0, bytes = 0, stride = 0;
};
using GmRowsFn = GmRows (*)(const Op&, const int64_t* operands, int64_t element_size);

// The work units the timing model charges (CostKind::Cube); element_size is operand extent_size_operand's.
using WorkFn = int64_t (*)(const Op&, const int64_t* operands, int64_t element_size);

// How the Ascend C emitter spells an op: by the row's statement template, by
// hand code of its own (codegen lists those), or not at all (with the reason).
enum class EmitForm : uint8_t { None, Template, Hand };

struct OpInfo {
  OpCode code;
  const char* name = nullptr;
  Pipe pipe = Pipe::S;                // fixed pipe (PipeFn overrides)
  PipeFn pipe_fn = nullptr;           // nullptr: use `pipe`
  std::vector<OperandKind> operands;  // positional operand kinds
  uint8_t min_operands = 0;           // trailing operands past this are optional
  std::vector<AttrSpec> attrs;        // normalised into this order on build
  ResultFn result = nullptr;
  CheckFn check = nullptr;           // nullptr: no rule beyond operand kinds
  std::vector<MemEffect> effects;    // local/global memory the op touches
  const char* ascendc = "";          // the Ascend C API it is (docs, docstrings)
  EmitForm emit = EmitForm::None;    // how the emitter spells it
  std::string spelling;              // EmitForm::Template: codegen/ascendc_spelling.h
  const char* why_not_emitted = "";  // EmitForm::None: why
  int regions = 0;                   // number of regions (for: 1, if: 2)
  bool framework = false;            // removed by lowering; never reaches a device
  bool pure = false;                 // its result depends on its operands and attributes only (passes merge repeats)
  CostKind cost = CostKind::Scalar;  // how the timing model charges it
  VecCost vcost = VecCost::Default;  // CostKind::Vector: the family the platform's vector cost table prices it by
  uint32_t dtypes = 0;               // the element dtypes accepted (bit = DType), of operand dtype_operand
  uint8_t dtype_operand = 0;
  VecFamily family = VecFamily::NONE;
  bool mask_mode = false;  // the `.mask` form of a vector instruction
  MaskReg mask_reg = MaskReg::None;
  uint8_t mask_operand = kNoOperand;  // mask0 (mask1 follows), for MaskReg::Operands and LoadsRaw
  ResultElementsFn result_elements = nullptr;
  ExtentFn extent = nullptr;
  WorkFn work = nullptr;
  GmRowsFn gm_rows = nullptr;         // the destination's rows, when it writes GM with gaps
  GmRowsFn gm_read_rows = nullptr;    // the source's rows, when it reads GM with gaps
  uint8_t word_operand = kNoOperand;  // a 64-bit word of bits (fixpipe's deq_scalar), not a size
  uint8_t extent_size_operand = 0;
  bool mask_by_wider_dtype = false;  // cast: a repeat holds 256 bytes of the wider of dst and src
  bool reads_dst = false;            // the instruction reads its destination's old value
  const char* doc = "";              // what it computes, one line (docstrings, docs/instructions.md)
  const char* repeat_params = "";    // vector mask forms: the AscendC:: struct of the strides ("" for arguments)
};

namespace detail {
// The op table's rows once built (null before the first lookup): op_info is on the Model's path of every
// instruction, and a function-local static's guard plus a call into another file was a few percent of a
// small-tile kernel's run.
extern std::atomic<const OpInfo*> op_rows;
const OpInfo* build_op_rows();  // builds the table (once, thread-safe) and publishes op_rows
}  // namespace detail

inline const OpInfo& op_info(OpCode code) {
  const OpInfo* rows = detail::op_rows.load(std::memory_order_acquire);
  if (!rows) rows = detail::build_op_rows();
  return rows[static_cast<size_t>(code)];
}
// Looks an op up by name, resolving aliases (data_copy picks its direction
// from the operand kinds). Returns nullptr if unknown.
const OpInfo* find_op(std::string_view name, const std::vector<Type>& operand_types);
// All op names, for "did you mean" and documentation.
std::vector<std::string_view> op_names();
// op_pipe and op_runs_on_scalar_unit are in ir/ir.h, inline once Op is complete.

}  // namespace asc
