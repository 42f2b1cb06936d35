// The op table's assembly and look-ups. The rows themselves are in the family
// files (ops_*.cpp), written with the named fields of ir/op_rows.h.
#include "ir/op_table.h"

#include <unordered_map>

#include "ir/ir.h"
#include "ir/op_rows.h"
#include "ir/row_rules.h"

namespace asc {
namespace rows {

Row& OpTable::def(OpCode code, const char* name) {
  OpInfo& info = rows_[static_cast<size_t>(code)];
  if (info.name)
    fail(ASC_ERR_INTERNAL, "op table: {} is defined twice ('{}', '{}')", static_cast<int>(code), info.name, name);
  info.code = code;
  info.name = name;
  builders_.push_back(std::make_unique<Row>(info));
  return *builders_.back();
}

Row& OpTable::def_like(OpCode code, const char* name, OpCode like) {
  OpInfo copy = rows_[static_cast<size_t>(like)];
  Row& row = def(code, name);
  copy.code = code;
  copy.name = name;
  row.info() = std::move(copy);
  return row;
}

std::vector<OpInfo> OpTable::finish() {
  for (const auto& b : builders_) {
    OpInfo& info = b->info();
    info.min_operands = b->min_operands();
    if (!info.result) info.result = no_result;
  }
  for (size_t i = 0; i < rows_.size(); ++i) {
    const OpInfo& info = rows_[i];
    if (!info.name) fail(ASC_ERR_INTERNAL, "op table: op {} has no row", i);
    // Every op is spelled by the emitter or says why it is not: never discovered at run time.
    if (info.emit == EmitForm::None && !*info.why_not_emitted)
      fail(ASC_ERR_INTERNAL, "op table: '{}' says neither how Ascend C spells it nor why it is not emitted", info.name);
  }
  return std::move(rows_);
}

}  // namespace rows

namespace {

using K = OperandKind;

const std::vector<OpInfo>& table() {
  static const std::vector<OpInfo> t = [] {
    rows::OpTable table;
    rows::define_scalar_ops(table);
    rows::define_tensor_ops(table);
    rows::define_data_copy_ops(table);
    rows::define_data_movement_ops(table);
    rows::define_vector_ops(table);
    rows::define_reduce_ops(table);
    rows::define_compare_select_ops(table);
    rows::define_gather_ops(table);
    rows::define_sort_ops(table);
    rows::define_cube_ops(table);
    rows::define_cube_extra_ops(table);
    rows::define_sync_ops(table);
    rows::define_system_ops(table);
    rows::define_debug_ops(table);
    rows::define_list_tensor_ops(table);
    rows::define_adv_ops(table);
    rows::define_framework_ops(table);
    return table.finish();
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

std::atomic<const OpInfo*> detail::op_rows{nullptr};

const OpInfo* detail::build_op_rows() {
  const OpInfo* rows = table().data();
  op_rows.store(rows, std::memory_order_release);
  return rows;
}

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
    if (dst == TypeKind::LocalTensor && src == TypeKind::LocalTensor && position_is_vector(operand_types[1].position) &&
        position_memory(operand_types[0].position) == Memory::L1)
      return &op_info(blocks ? OpCode::CopyUbToL1Blocks : OpCode::CopyUbToL1);  // Ascend 950's UB -> L1, on MTE3
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

int attr_index(const OpInfo& info, std::string_view name) {
  for (size_t i = 0; i < info.attrs.size(); ++i)
    if (name == info.attrs[i].name) return static_cast<int>(i);
  return -1;
}

}  // namespace asc
