// How the op table's rows are written: one `def(OpCode, "name")` per op, then
// named fields, e.g.
//
//   t.def(OpCode::CopyGmToLocal, "data_copy.gm_to_local")
//       .pipe(Pipe::MTE2).operands({K::LocalTensor, K::GlobalTensor, K::IntScalar}).check(check_gm_to_local)
//       .reads(1, count(2).whole_blocks()).writes(0, count(2).whole_blocks()).cost(CostKind::GmCopy)
//       .ascendc("AscendC::DataCopy", "{api}({0}, {1}, {2:uint32_t});");
//
// Rows are grouped one file per family (ops_*.cpp), each a `define_*_ops(OpTable&)`.
// Internal to src/ir: the rest of the tree reads rows through op_table.h.
#pragma once

#include <initializer_list>
#include <string>
#include <vector>

#include "ir/ir.h"

namespace asc::rows {

using K = OperandKind;

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

// A memory effect's span, by form (MemEffect in op_table.h; ir/effects.h decodes them).
class Span {
 public:
  // `count` elements from the tensor's start (the value of operand `count_operand`).
  static Span count(uint8_t count_operand) { return Span(count_operand); }
  // One element (at `offset` elements, the value of an operand).
  static Span element(uint8_t offset_operand) {
    Span s(kNoOperand);
    s.e_.offset_operand = offset_operand;
    s.e_.block_aligned = false;
    return s;
  }
  // The row's extent function gives the byte span.
  static Span extent() { return Span(kExtentFn); }
  // Which elements depends on data; the handler checks each access.
  static Span data_dependent() { return Span(kDataDependent); }
  // The vector mask/repeat form: repeats of 8 blocks, strides in blocks, blocks the mask selects.
  static Span strided(uint8_t mask, uint8_t repeat, uint8_t blk_stride, uint8_t rep_stride) {
    Span s(kNoOperand);
    s.e_.mask_operand = mask;
    s.e_.repeat_operand = repeat;
    s.e_.blk_stride_operand = blk_stride;
    s.e_.rep_stride_operand = rep_stride;
    return s;
  }
  // DataCopyParams: `rows` rows of `block_len` 32-byte blocks, `gap` blocks apart.
  static Span blocks(uint8_t rows, uint8_t block_len, uint8_t gap) {
    Span s(rows);
    s.e_.block_len_operand = block_len;
    s.e_.gap_operand = gap;
    return s;
  }
  // One result per repeat (`repeats` operand, or the mask register's count), `stride` results apart.
  static Span results(uint8_t repeats, uint8_t stride, uint8_t mask) {
    Span s(repeats);
    s.e_.results_stride_operand = stride;
    s.e_.mask_operand = mask;
    return s;
  }
  Span& whole_blocks() {
    e_.whole_blocks = true;
    return *this;
  }
  Span& unaligned() {
    e_.block_aligned = false;
    return *this;
  }
  Span& aligned() {
    e_.block_aligned = true;
    return *this;
  }
  MemEffect effect(uint8_t tensor, bool write) const {
    MemEffect e = e_;
    e.tensor = tensor;
    e.write = write;
    return e;
  }

 private:
  explicit Span(uint8_t count_operand) {
    e_.count_operand = count_operand;
    e_.whole_blocks = false;
    e_.write = false;
    e_.tensor = 0;
  }
  MemEffect e_{};
};

inline Span count(uint8_t operand) { return Span::count(operand); }
inline Span extent() { return Span::extent(); }
inline Span strided(uint8_t mask, uint8_t repeat, uint8_t blk, uint8_t rep) {
  return Span::strided(mask, repeat, blk, rep);
}

// The named fields of one row.
class Row {
 public:
  explicit Row(OpInfo& info) : r_(info) {}
  Row& pipe(Pipe p) {
    r_.pipe = p;
    return *this;
  }
  Row& pipe(PipeFn f) {
    r_.pipe_fn = f;
    return *this;
  }
  Row& operands(std::initializer_list<K> kinds) {
    r_.operands.insert(r_.operands.end(), kinds);
    return *this;
  }
  Row& operands(size_t n, K kind) {
    r_.operands.insert(r_.operands.end(), n, kind);
    return *this;
  }
  // Operands past the first `n` are optional.
  Row& optional_from(uint8_t n) {
    optional_from_ = n;
    return *this;
  }
  Row& attr(const char* name, asc_attr_kind_t kind = ASC_ATTR_INT) {
    r_.attrs.push_back({name, kind, true});
    return *this;
  }
  Row& attr_default(const char* name, int64_t value) {
    r_.attrs.push_back({name, ASC_ATTR_INT, false, value});
    return *this;
  }
  Row& attr_optional(const char* name, asc_attr_kind_t kind) {
    r_.attrs.push_back({name, kind, false});
    return *this;
  }
  Row& result(ResultFn f) {
    r_.result = f;
    return *this;
  }
  Row& check(CheckFn f) {
    r_.check = f;
    return *this;
  }
  Row& reads(uint8_t tensor, const Span& s) {
    r_.effects.push_back(s.effect(tensor, false));
    return *this;
  }
  Row& writes(uint8_t tensor, const Span& s) {
    r_.effects.push_back(s.effect(tensor, true));
    return *this;
  }
  Row& extent(ExtentFn f, uint8_t size_operand = 0) {
    r_.extent = f;
    r_.extent_size_operand = size_operand;
    return *this;
  }
  Row& gm_rows(GmRowsFn f) {
    r_.gm_rows = f;
    return *this;
  }
  Row& gm_read_rows(GmRowsFn f) {
    r_.gm_read_rows = f;
    return *this;
  }
  Row& work(WorkFn f) {
    r_.work = f;
    return *this;
  }
  Row& cost(CostKind c) {
    r_.cost = c;
    return *this;
  }
  // A vector instruction priced by its API family (ir/vector_cost.h).
  Row& cost(VecCost family) {
    r_.cost = CostKind::Vector;
    r_.vcost = family;
    return *this;
  }
  Row& dtypes(uint32_t bits, uint8_t of_operand = 0) {
    r_.dtypes = bits;
    r_.dtype_operand = of_operand;
    return *this;
  }
  Row& vector(VecFamily family, bool mask_mode) {
    r_.family = family;
    r_.mask_mode = mask_mode;
    return *this;
  }
  Row& mask_register(MaskReg use, uint8_t mask_operand = kNoOperand) {
    r_.mask_reg = use;
    r_.mask_operand = mask_operand;
    return *this;
  }
  // The mask0/mask1 operands of a form that does not use the mask register.
  Row& mask_operands(uint8_t first) {
    r_.mask_operand = first;
    return *this;
  }
  Row& result_elements(ResultElementsFn f) {
    r_.result_elements = f;
    return *this;
  }
  Row& word_operand(uint8_t i) {
    r_.word_operand = i;
    return *this;
  }
  Row& mask_by_wider_dtype() {
    r_.mask_by_wider_dtype = true;
    return *this;
  }
  Row& reads_dst() {
    r_.reads_dst = true;
    return *this;
  }
  Row& repeat_params(const char* name) {
    r_.repeat_params = name;
    return *this;
  }
  Row& doc(const char* text) {
    r_.doc = text;
    return *this;
  }
  Row& regions(int n) {
    r_.regions = n;
    return *this;
  }
  // A function of its operands and attributes, with no effect: merge_common_values computes each such op once.
  Row& pure() {
    r_.pure = true;
    return *this;
  }
  Row& framework() {
    r_.framework = true;
    return why_not_emitted("a framework op, lowered to plain tensors and flags before any device sees it");
  }
  // The Ascend C name and how the emitter spells the op: a statement template
  // (placeholders in codegen/ascendc_spelling.h), or "" when the emitter has
  // hand code for it (listed in codegen, checked by test_codegen).
  Row& ascendc(const char* name, std::string spelling = "") {
    r_.ascendc = name;
    r_.spelling = std::move(spelling);
    r_.emit = r_.spelling.empty() ? EmitForm::Hand : EmitForm::Template;
    return *this;
  }
  // The emitter's own code spells it, with no Ascend C name of its own (scalar arithmetic, control flow).
  Row& hand_emitted() {
    r_.emit = EmitForm::Hand;
    return *this;
  }
  Row& spelled(std::string spelling) {
    r_.spelling = std::move(spelling);
    r_.emit = EmitForm::Template;
    return *this;
  }
  Row& why_not_emitted(const char* reason) {
    r_.emit = EmitForm::None;
    r_.why_not_emitted = reason;
    return *this;
  }
  uint8_t min_operands() const { return optional_from_ == kNoOperand ? r_.operands.size() : optional_from_; }
  OpInfo& info() { return r_; }

 private:
  OpInfo& r_;
  uint8_t optional_from_ = kNoOperand;
};

// The table under construction: one slot per OpCode, filled by the family files.
class OpTable {
 public:
  OpTable() : rows_(static_cast<size_t>(kOpCount)), builders_() {}
  Row& def(OpCode code, const char* name);
  // A copy of an existing row under another code and name (a form that adds operands).
  Row& def_like(OpCode code, const char* name, OpCode like);
  std::vector<OpInfo> finish();

 private:
  std::vector<OpInfo> rows_;
  std::vector<std::unique_ptr<Row>> builders_;
};

// The family files.
void define_scalar_ops(OpTable& t);
void define_tensor_ops(OpTable& t);
void define_data_copy_ops(OpTable& t);
void define_data_movement_ops(OpTable& t);
void define_vector_ops(OpTable& t);
void define_reduce_ops(OpTable& t);
void define_compare_select_ops(OpTable& t);
void define_gather_ops(OpTable& t);
void define_sort_ops(OpTable& t);
void define_cube_ops(OpTable& t);
void define_cube_extra_ops(OpTable& t);  // ops_cube_extras.cpp
void define_sync_ops(OpTable& t);
void define_system_ops(OpTable& t);
void define_debug_ops(OpTable& t);
void define_list_tensor_ops(OpTable& t);
void define_adv_ops(OpTable& t);  // ops_adv.cpp: the adv library's markers
void define_framework_ops(OpTable& t);

}  // namespace asc::rows
