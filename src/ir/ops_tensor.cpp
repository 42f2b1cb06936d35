// Rows of tensors and addresses: GM addresses, GlobalTensor and LocalTensor
// creation and slices, and scalar element access.
#include "ir/op_rows.h"
#include "ir/row_rules.h"

namespace asc::rows {
namespace {

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

Type global_tensor_of_addr(const OpView& v) { return Type::global_tensor(v.operand_type(0).dtype); }

void check_reinterpret(const OpView& v) {
  check_dtype_attr(v);
  if (static_cast<DType>(v.op.attr_int(0)) == DType::Bool)
    type_error(v, "reinterpret_cast needs an integer or floating-point dtype");
}

Type local_tensor_as_attr_dtype(const OpView& v) {
  return Type::local_tensor(static_cast<DType>(v.op.attr_int(0)), v.operand_type(0).position);
}

Type gm_addr_of_tensor(const OpView& v) { return Type::gm_addr(v.operand_type(0).dtype); }

Type local_tensor_from_attrs(const OpView& v) {
  return Type::local_tensor(static_cast<DType>(v.op.attr_int(0)), static_cast<Position>(v.op.attr_int(1)));
}

}  // namespace

void define_tensor_ops(OpTable& t) {
  t.def(OpCode::GmOffset, "gm.offset")
      .operands({K::GmAddr, K::IntScalar})
      .result(same_as_operand0)
      .spelled("GM_ADDR {result} = {0} + static_cast<int64_t>({1}) * static_cast<int64_t>(sizeof({T:0}));")
      .pure();
  // the same GM address seen as another dtype
  t.def(OpCode::GmReinterpret, "gm.reinterpret")
      .operands({K::GmAddr})
      .attr("dtype")
      .result([](const OpView& v) { return Type::gm_addr(static_cast<DType>(v.op.attr_int(0))); })
      .check(check_dtype_attr)
      .ascendc("reinterpret_cast", "GM_ADDR {result} = {0};");
  // the length is optional
  t.def(OpCode::GlobalSetBuffer, "global_tensor.set_global_buffer")
      .operands({K::GmAddr, K::IntScalar})
      .optional_from(1)
      .result(global_tensor_of_addr)
      .ascendc("SetGlobalBuffer");
  t.def(OpCode::GlobalSlice, "global_tensor.slice")
      .operands({K::GlobalTensor, K::IntScalar})
      .result(same_as_operand0)
      .spelled("AscendC::GlobalTensor<{T:result}> {result} = {0}[static_cast<uint64_t>({1})];")
      .pure();
  // static tensor programming: a position, a byte address, a length
  t.def(OpCode::LocalCreate, "local_tensor.create")
      .operands({K::IntScalar, K::IntScalar})
      .attr("dtype")
      .attr("position")
      .attr_optional("name", ASC_ATTR_STRING)
      .result(local_tensor_from_attrs)
      .check(check_local_create)
      .ascendc("AscendC::LocalTensor",
               "AscendC::LocalTensor<{T:result}> {result}(AscendC::TPosition::{pos:result}, {0:uint32_t}, "
               "{1:uint32_t});");
  t.def(OpCode::LocalSlice, "local_tensor.slice")
      .operands({K::LocalTensor, K::IntScalar})
      .result(same_as_operand0)
      .spelled("AscendC::LocalTensor<{T:result}> {result} = {0}[static_cast<uint32_t>({1})];")
      .pure();
  // ReinterpretCast: the same bytes, so the length scales by the two element sizes
  t.def(OpCode::LocalReinterpret, "local_tensor.reinterpret_cast")
      .operands({K::LocalTensor})
      .attr("dtype")
      .result(local_tensor_as_attr_dtype)
      .check(check_reinterpret)
      .ascendc("ReinterpretCast", "AscendC::LocalTensor<{T:result}> {result} = {0}.ReinterpretCast<{T:result}>();");
  // SetSize on a copy: later uses of the tensor see the new length (in elements)
  t.def(OpCode::LocalSetSize, "local_tensor.set_size")
      .operands({K::LocalTensor, K::IntScalar})
      .result(same_as_operand0)
      .ascendc("SetSize",
               "AscendC::LocalTensor<{T:result}> {result} = {0};\n{result}.SetSize(static_cast<uint32_t>({1}));");
  t.def(OpCode::LocalGetSize, "local_tensor.get_size")
      .operands({K::LocalTensor})
      .result(int32_result)
      .ascendc("GetSize", "{T:result} {result} = static_cast<{T:result}>({0}.GetSize());");
  // the byte address in the tensor's local memory, `offset` elements on
  t.def(OpCode::LocalGetPhyAddr, "local_tensor.get_phy_addr")
      .operands({K::LocalTensor, K::IntScalar})
      .result(uint64_result)
      .ascendc("GetPhyAddr", "{T:result} {result} = {0}.GetPhyAddr(static_cast<uint32_t>({1}));");
  // 0 when set_global_buffer was given no length (Ascend C's bufferSize default)
  t.def(OpCode::GlobalGetSize, "global_tensor.get_size")
      .operands({K::GlobalTensor})
      .result(uint64_result)
      .ascendc("GetSize", "{T:result} {result} = static_cast<{T:result}>({0}.GetSize());");
  t.def(OpCode::GlobalGetPhyAddr, "global_tensor.get_phy_addr")
      .operands({K::GlobalTensor, K::IntScalar})
      .result(gm_addr_of_tensor)
      .ascendc("GetPhyAddr",
               "GM_ADDR {result} = reinterpret_cast<GM_ADDR>({0}.GetPhyAddr(static_cast<uint64_t>({1})));");
  // SetL2CacheHint: the tensor with its cache mode (CacheMode) and read/write mode (CacheRwMode); the timing model
  // reads both (sim/hbm_sharing.h: which accesses bypass L2 or claim its room first). Emitted as a copy: Ascend C takes
  // SetL2CacheHint only in custom-operator projects, not in the direct kernel launches asc builds, and results do not
  // depend on it.
  t.def(OpCode::GlobalSetL2CacheHint, "global_tensor.set_l2_cache_hint")
      .operands({K::GlobalTensor})
      .attr("mode")
      .attr("rw_mode")
      .result(same_as_operand0)
      .spelled("AscendC::GlobalTensor<{T:result}> {result} = {0};");
  const char* get = "{T:result} {result} = {0}.GetValue(static_cast<uint64_t>({1}));";
  const char* set = "{0}.SetValue(static_cast<uint64_t>({1}), {2});";
  t.def(OpCode::GetValue, "local_tensor.get_value")
      .operands({K::LocalTensor, K::IntScalar})
      .result(tensor_dtype_scalar)
      .check(check_get_value)
      .reads(0, Span::element(1))
      .cost(CostKind::ScalarMemory)
      .ascendc("GetValue", get);
  t.def(OpCode::SetValue, "local_tensor.set_value")
      .operands({K::LocalTensor, K::IntScalar, K::AnyScalar})
      .check(check_set_value)
      .writes(0, Span::element(1))
      .cost(CostKind::ScalarMemory)
      .ascendc("SetValue", set);
  t.def(OpCode::GlobalGetValue, "global_tensor.get_value")
      .operands({K::GlobalTensor, K::IntScalar})
      .result(tensor_dtype_scalar)
      .reads(0, Span::element(1))
      .cost(CostKind::ScalarMemory)
      .ascendc("GetValue", get);
  t.def(OpCode::GlobalSetValue, "global_tensor.set_value")
      .operands({K::GlobalTensor, K::IntScalar, K::AnyScalar})
      .check(check_scalar_value_dtype)
      .writes(0, Span::element(1))
      .cost(CostKind::ScalarMemory)
      .ascendc("SetValue", set);
}

}  // namespace asc::rows
