// Rows of list tensors: Ascend C's ListTensorDesc, which decodes a GM buffer the host laid out (a list of tensors:
// their shapes and data pointers), and TensorDesc, one entry of it
// (https://www.hiascend.com/document/detail/zh/CANNCommunityEdition/80RC3alpha002/apiref/opdevgapi/atlasascendc_api_07_0018.html).
//
// The buffer, in uint64 words: word 0 the byte offset of the pointer array from the buffer's start; then one
// record per tensor, a header word (dim in the low 32 bits, the tensor's index in the high 32) and dim shape words;
// then the pointer array, one GM address per tensor. Every record has the first's dim. A list of pointers only
// has dim 0: one header word (the count in its high 32 bits), one word 0xffffffff, and the pointer array at byte 24.
// The count is the first header's high half when not 0, else the last record's index + 1; Init's length and
// shapeSize, when both are given (not 0xffffffff), must be the buffer's bytes and the count (asc-devkit
// impl/basic_api/dav_c220/kernel_operator_list_tensor_impl.h: ListTensorDecode, GetDesc, GetDataPtr).
//
// The IR has no object types of its own for them: a ListTensorDesc is the GM address of its buffer (a uint64 GM
// address made by list_tensor_desc.init), a TensorDesc<T> a GM address of T made by tensor_desc.create or
// list_tensor_desc.get_desc; the verifier requires each operand to come from those ops. The Model's handlers
// read the descriptor's words themselves (bounds-checked against the launch's GM arguments; sim/list_tensor_ops.cpp),
// so the rows declare no memory effects: the buffer is the host's input, which no instruction of the kernel writes.
#include "ir/op_rows.h"
#include "ir/row_rules.h"

namespace asc::rows {
namespace {

// A TensorDesc's shape slots: the emitted Ascend C declares this many uint64_t with each TensorDesc.
constexpr int kTensorDescShapeSlots = 8;
static_assert(kTensorDescShapeSlots == 8, "the spelling below declares 8 slots");

void require_list(const OpView& v, size_t i) {
  const Op* def = v.operand_def(i);
  if (!def || def->code != OpCode::ListTensorDescInit)
    type_error(v, "the ListTensorDesc must come from ListTensorDesc(data, ...) or init()");
}

void require_desc(const OpView& v, size_t i) {
  const Op* def = v.operand_def(i);
  if (!def || (def->code != OpCode::TensorDescCreate && def->code != OpCode::ListTensorDescGetDesc))
    type_error(v, "the TensorDesc must come from TensorDesc() or ListTensorDesc.get_desc()");
}

void check_init(const OpView& v) {
  if (v.operand_type(0).kind != TypeKind::GmAddr) type_error(v, "data must be a GM address");
}
void check_list(const OpView& v) { require_list(v, 0); }
void check_get_desc(const OpView& v) {
  require_list(v, 0);
  require_desc(v, 1);
}
void check_desc(const OpView& v) { require_desc(v, 0); }

Type list_result(const OpView&) { return Type::gm_addr(DType::UInt64); }
Type uint32_result(const OpView&) { return Type::scalar(DType::UInt32); }
Type gm_addr_of_attr(const OpView& v) { return Type::gm_addr(static_cast<DType>(v.op.attr_int(0))); }
Type desc_of_attr(const OpView& v) { return Type::gm_addr(static_cast<DType>(v.op.attr_int(0))); }
Type same_as_operand1(const OpView& v) { return v.operand_type(1); }
Type gm_addr_of_desc(const OpView& v) { return Type::gm_addr(v.operand_type(0).dtype); }
Type global_tensor_of_desc(const OpView& v) { return Type::global_tensor(v.operand_type(0).dtype); }

void check_dtype(const OpView& v) {
  check_dtype_attr(v);
  if (static_cast<DType>(v.op.attr_int(0)) == DType::Bool) type_error(v, "a tensor of bool has no GM element type");
}

}  // namespace

void define_list_tensor_ops(OpTable& t) {
  // ListTensorDesc(data, length = 0xffffffff, shapeSize = 0xffffffff), and the default one then Init(): one op
  t.def(OpCode::ListTensorDescInit, "list_tensor_desc.init")
      .operands({K::GmAddr, K::IntScalar, K::IntScalar})
      .result(list_result)
      .check(check_init)
      .cost(CostKind::ScalarMemory)
      .ascendc("AscendC::ListTensorDesc", "{api} {result}(reinterpret_cast<__gm__ void*>({0}), {1..:uint32_t});");
  t.def(OpCode::ListTensorDescGetSize, "list_tensor_desc.get_size")
      .operands({K::GmAddr})
      .result(uint32_result)
      .check(check_list)
      .cost(CostKind::ScalarMemory)
      .ascendc("GetSize", "uint32_t {result} = {0}.GetSize();");
  // GetDataPtr<T>(index): tensor index's data pointer, as a GM address of T
  t.def(OpCode::ListTensorDescGetDataPtr, "list_tensor_desc.get_data_ptr")
      .operands({K::GmAddr, K::IntScalar})
      .attr("dtype")
      .result(gm_addr_of_attr)
      .check([](const OpView& v) {
        check_list(v);
        check_dtype(v);
      })
      .cost(CostKind::ScalarMemory)
      .ascendc("GetDataPtr",
               "GM_ADDR {result} = reinterpret_cast<GM_ADDR>({0}.GetDataPtr<{T:result}>(static_cast<uint32_t>({1})));");
  // GetDesc(desc, index): desc's dim, index, data pointer and (into its shape slots) shape; a new TensorDesc value
  t.def(OpCode::ListTensorDescGetDesc, "list_tensor_desc.get_desc")
      .operands({K::GmAddr, K::GmAddr, K::IntScalar})
      .result(same_as_operand1)
      .check(check_get_desc)
      .cost(CostKind::ScalarMemory)
      .ascendc("GetDesc",
               "AscendC::TensorDesc<{T:result}> {result} = {1};\n{0}.GetDesc({result}, static_cast<uint32_t>({2}));");
  // TensorDesc<T>() with its shape slots: the emitted Ascend C gives every TensorDesc 8 uint64_t for GetDesc to
  // fill (Ascend C leaves that to SetShapeAddr; the Python API has no scalar-memory arrays to pass)
  t.def(OpCode::TensorDescCreate, "tensor_desc.create")
      .attr("dtype")
      .result(desc_of_attr)
      .check(check_dtype)
      .ascendc("AscendC::TensorDesc",
               "{api}<{T:result}> {result};\nuint64_t {result}_shape[8] = {{}};\n"
               "{result}.SetShapeAddr({result}_shape);");
  // SetShapeAddr(uint64_t* shapePtr): an address in the scalar unit's memory, which the Model does not have; the
  // Model fails (the board asserts shapePtr != nullptr; any other value is an address asc cannot check)
  t.def(OpCode::TensorDescSetShapeAddr, "tensor_desc.set_shape_addr")
      .operands({K::GmAddr, K::IntScalar})
      .check(check_desc)
      .ascendc("SetShapeAddr", "{0}.SetShapeAddr(reinterpret_cast<uint64_t*>(static_cast<uintptr_t>({1})));");
  t.def(OpCode::TensorDescGetDim, "tensor_desc.get_dim")
      .operands({K::GmAddr})
      .result(uint64_result)
      .check(check_desc)
      .ascendc("GetDim", "uint64_t {result} = {0}.GetDim();");
  t.def(OpCode::TensorDescGetIndex, "tensor_desc.get_index")
      .operands({K::GmAddr})
      .result(uint64_result)
      .check(check_desc)
      .ascendc("GetIndex", "uint64_t {result} = {0}.GetIndex();");
  // GetShape(offset): shape word offset < dim (the board asserts it)
  t.def(OpCode::TensorDescGetShape, "tensor_desc.get_shape")
      .operands({K::GmAddr, K::IntScalar})
      .result(uint64_result)
      .check(check_desc)
      .cost(CostKind::ScalarMemory)
      .ascendc("GetShape", "uint64_t {result} = {0}.GetShape(static_cast<uint32_t>({1}));");
  t.def(OpCode::TensorDescGetDataPtr, "tensor_desc.get_data_ptr")
      .operands({K::GmAddr})
      .result(gm_addr_of_desc)
      .check(check_desc)
      .cost(CostKind::ScalarMemory)
      .ascendc("GetDataPtr", "GM_ADDR {result} = reinterpret_cast<GM_ADDR>({0}.GetDataPtr());");
  // GetDataObj(): a GlobalTensor over the data pointer, as long as the shape's product of elements
  t.def(OpCode::TensorDescGetDataObj, "tensor_desc.get_data_obj")
      .operands({K::GmAddr})
      .result(global_tensor_of_desc)
      .check(check_desc)
      .cost(CostKind::ScalarMemory)
      .ascendc("GetDataObj", "AscendC::GlobalTensor<{T:result}> {result} = {0}.GetDataObj();");
}

}  // namespace asc::rows
