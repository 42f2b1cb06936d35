"""List tensors: Ascend C's ListTensorDesc, which decodes a GM buffer the host laid out (the shapes and data
pointers of a list of tensors), and TensorDesc, one entry of it. Each method is one row of the op table
(src/ir/ops_list_tensor.cpp, which gives the buffer's layout and cites the documentation); the host builds the
buffer with asc.lib.host.list_tensor_desc."""

from __future__ import annotations

from typing import Any, Optional

from ...codegen.context import current_builder
from ...errors import CodegenError
from ..core import dtype as dt
from ..core.ir_value import IRObject, Scalar, to_int
from ..core.tensor import GlobalAddress, GlobalTensor

_NO_CHECK = 0xFFFFFFFF  # Init's length / shapeSize default: not checked


def _dtype(value: Any, fn: str) -> dt.DataType:
    if not isinstance(value, dt.DataType):
        raise CodegenError(f"{fn}: dtype must be an asc dtype such as asc.float16, got {value!r}")
    if value == dt.bool_:
        raise CodegenError(f"{fn}: a GM tensor of bool has no Ascend C element type; use asc.uint8 or asc.int8")
    return value


class TensorDesc(IRObject):
    """``AscendC::TensorDesc<T>``: one tensor of a ListTensorDesc (its dim, index, shape and data pointer), filled by
    ``ListTensorDesc.get_desc(desc, index)``. `dtype` is T, the element type of get_data_ptr / get_data_obj
    (default asc.float32). Before get_desc fills it, get_dim and get_index are 0."""

    __slots__ = ("dtype",)
    __asc_builtin__ = True  # kernels construct it

    def __init__(self, dtype: dt.DataType = dt.float32) -> None:
        self.dtype = _dtype(dtype, "TensorDesc")
        self.handle = current_builder().op("tensor_desc.create", [], {"dtype": self.dtype.code})

    def _with_handle(self, handle: int) -> TensorDesc:
        d = TensorDesc.__new__(TensorDesc)
        d.handle, d.dtype = handle, self.dtype
        return d

    def set_shape_addr(self, shape_ptr: Any) -> None:
        """``TensorDesc::SetShapeAddr(uint64_t* shapePtr)``: where get_desc writes the shape, an address in the scalar
        unit's memory. Python has no such arrays: every asc TensorDesc has 8 shape slots of its own, set already,
        so on the Model this call is a run-time error (the board asserts a null one)."""
        current_builder().op("tensor_desc.set_shape_addr", [self.handle, to_int(shape_ptr, "shape_ptr").handle])

    def get_dim(self) -> Scalar:
        """``TensorDesc::GetDim()``: the tensor's number of dimensions (uint64)."""
        return Scalar(current_builder().op("tensor_desc.get_dim", [self.handle]), dt.uint64)

    def get_index(self) -> Scalar:
        """``TensorDesc::GetIndex()``: the tensor's index in its ListTensorDesc (uint64)."""
        return Scalar(current_builder().op("tensor_desc.get_index", [self.handle]), dt.uint64)

    def get_shape(self, offset: Any) -> Scalar:
        """``TensorDesc::GetShape(offset)``: dimension `offset` of the shape (uint64); offset < get_dim()."""
        off = to_int(offset, "get_shape offset")
        return Scalar(current_builder().op("tensor_desc.get_shape", [self.handle, off.handle]), dt.uint64)

    def get_data_ptr(self) -> GlobalAddress:
        """``TensorDesc::GetDataPtr()``: the tensor's data, a GM address of `dtype`."""
        return GlobalAddress(current_builder().op("tensor_desc.get_data_ptr", [self.handle]), self.dtype)

    def get_data_obj(self) -> GlobalTensor:
        """``TensorDesc::GetDataObj()``: a GlobalTensor of `dtype` over the tensor's data, as long as the product of
        its shape."""
        return GlobalTensor._wrap(current_builder().op("tensor_desc.get_data_obj", [self.handle]), self.dtype)

    def __repr__(self) -> str:
        return f"TensorDesc(%{self.handle}: {self.dtype.name})"


class ListTensorDesc(IRObject):
    """``AscendC::ListTensorDesc``: ``ListTensorDesc(data, length=0xffffffff, shape_size=0xffffffff)`` decodes the
    list the host laid out at GM address `data`; ``ListTensorDesc()`` then ``init(data, ...)`` does the same.
    `length` (the buffer's bytes) and `shape_size` (the tensor count) are checked when both are given."""

    __slots__ = ()
    __asc_builtin__ = True  # kernels construct it

    def __init__(self, data: Optional[GlobalAddress] = None, length: Any = _NO_CHECK, shape_size: Any = _NO_CHECK):
        current_builder()  # only inside kernels
        self.handle: Optional[int] = None  # type: ignore[assignment]
        if data is not None:
            self.init(data, length, shape_size)

    def _with_handle(self, handle: int) -> ListTensorDesc:
        d = ListTensorDesc.__new__(ListTensorDesc)
        d.handle = handle
        return d

    def _require(self, fn: str) -> int:
        if self.handle is None:
            raise CodegenError(f"ListTensorDesc.{fn}: the ListTensorDesc has no data: call init(data, ...) first")
        return self.handle

    def init(self, data: GlobalAddress, length: Any = _NO_CHECK, shape_size: Any = _NO_CHECK) -> None:
        """``ListTensorDesc::Init(data, length, shapeSize)``: decode the list at GM address `data`."""
        if not isinstance(data, GlobalAddress):
            raise CodegenError(f"ListTensorDesc: data must be a GM address (a GlobalAddress parameter), got {data!r}")
        operands = [data.handle, to_int(length, "length").handle, to_int(shape_size, "shape_size").handle]
        self.handle = current_builder().op("list_tensor_desc.init", operands)

    def get_desc(self, desc: TensorDesc, index: Any) -> None:
        """``ListTensorDesc::GetDesc(desc, index)``: fill `desc` with tensor `index` (its dim, index, shape and data
        pointer)."""
        if not isinstance(desc, TensorDesc):
            raise CodegenError(f"ListTensorDesc.get_desc: desc must be an asc.TensorDesc, got {type(desc).__name__}")
        i = to_int(index, "get_desc index")
        desc.handle = current_builder().op(
            "list_tensor_desc.get_desc", [self._require("get_desc"), desc.handle, i.handle]
        )

    def get_data_ptr(self, index: Any, dtype: dt.DataType) -> GlobalAddress:
        """``ListTensorDesc::GetDataPtr<T>(index)``: tensor `index`'s data, a GM address of `dtype`."""
        d = _dtype(dtype, "ListTensorDesc.get_data_ptr")
        i = to_int(index, "get_data_ptr index")
        handle = current_builder().op(
            "list_tensor_desc.get_data_ptr", [self._require("get_data_ptr"), i.handle], {"dtype": d.code}
        )
        return GlobalAddress(handle, d)

    def get_size(self) -> Scalar:
        """``ListTensorDesc::GetSize()``: the number of tensors in the list (uint32)."""
        return Scalar(current_builder().op("list_tensor_desc.get_size", [self._require("get_size")]), dt.uint32)

    def __repr__(self) -> str:
        return f"ListTensorDesc(%{self.handle})"
