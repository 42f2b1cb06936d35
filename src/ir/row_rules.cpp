#include "ir/row_rules.h"

namespace asc::rows {

void type_error(const OpView& v, const std::string& msg) {
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

void require_position(const OpView& v, size_t i, Memory m, const char* role, const char* positions) {
  Position p = v.operand_type(i).position;
  if (v.operand_type(i).kind != TypeKind::LocalTensor || position_memory(p) != m ||
      position_is_vector(p) != (m == Memory::UB))
    type_error(v, fmt::format("{} must be a LocalTensor in {} ({}), not at TPosition.{}", role, memory_name(m),
                              positions, position_name(p)));
}

void require_row_dtype(const OpView& v, size_t i) {
  const OpInfo& info = v.op.info();
  DType d = v.operand_type(i).dtype;
  if (info.dtypes & (1u << static_cast<unsigned>(d))) return;
  std::string names;
  for (unsigned t = 0; t < ASC_DTYPE_COUNT; ++t)
    if (info.dtypes & (1u << t)) names += std::string(names.empty() ? "" : ", ") + dtype_name(static_cast<DType>(t));
  type_error(v, fmt::format("dtype {} is not supported (supported: {})", dtype_name(d), names));
}

void check_ub_same_dtype(const OpView& v) {
  require_ub_position(v, 0, "dst");
  require_ub_position(v, 1, "src");
  require_same_dtype(v, 0, 1);
  require_row_dtype(v, 0);
}

void check_mask_mode(const OpView& v) {
  if (v.op.attr_int(0) < 0 || v.op.attr_int(0) > kMaskFromRegister)
    type_error(v,
               "mask_mode is 0 (continuous: the first mask elements), 1 (bit mask) or 2 (the mask register: "
               "is_set_mask=False)");
}

void check_dtype_attr(const OpView& v) {
  if (!dtype_valid(static_cast<uint32_t>(v.op.attr_int(0))))
    type_error(v, fmt::format("unknown dtype {}", v.op.attr_int(0)));
}

Type no_result(const OpView&) { return Type::none(); }
Type same_as_operand0(const OpView& v) { return v.operand_type(0); }
Type bool_result(const OpView&) { return Type::scalar(DType::Bool); }
Type int32_result(const OpView&) { return Type::scalar(DType::Int32); }
Type int64_result(const OpView&) { return Type::scalar(DType::Int64); }
Type uint64_result(const OpView&) { return Type::scalar(DType::UInt64); }
Type dtype_attr_scalar(const OpView& v) { return Type::scalar(static_cast<DType>(v.op.attr_int(0))); }
Type tensor_dtype_scalar(const OpView& v) { return Type::scalar(v.operand_type(0).dtype); }

}  // namespace asc::rows
