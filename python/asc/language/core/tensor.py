"""GM addresses, GlobalTensor and LocalTensor as seen inside a kernel."""

from __future__ import annotations

from typing import Any, Optional

from ...codegen.context import current_builder
from ...errors import CodegenError
from . import dtype as dt
from .enums import TPosition
from .ir_value import IRObject, Scalar, cast, is_runtime, to_int, to_scalar


def _slice_start(index: Any, what: str) -> Any:
    """t[i] and t[i:] are both a view starting at element i (Ascend C's operator[])."""
    if not isinstance(index, slice):
        return index
    if index.stop is not None or index.step is not None:
        raise CodegenError(f"{what} views take a start only: {what}[start:]")
    return 0 if index.start is None else index.start


class GlobalAddress(IRObject):
    """A pointer into a GM buffer passed to the kernel (``__gm__ T*``)."""

    __slots__ = ("dtype",)

    def __init__(self, handle: int, dtype: dt.DataType):
        self.handle, self.dtype = handle, dtype

    def _with_handle(self, handle: int) -> GlobalAddress:
        return GlobalAddress(handle, self.dtype)

    def __add__(self, offset: Any) -> GlobalAddress:
        """`addr + n` moves the address by n elements."""
        off = to_int(offset, "a GM address offset")
        return GlobalAddress(current_builder().op("gm.offset", [self.handle, off.handle]), self.dtype)

    __radd__ = __add__

    def reinterpret(self, dtype: dt.DataType) -> GlobalAddress:
        """The same address, as a pointer to `dtype` elements."""
        return GlobalAddress(current_builder().op("gm.reinterpret", [self.handle], {"dtype": dtype.code}), dtype)

    def __repr__(self) -> str:
        return f"GlobalAddress(%{self.handle}: {self.dtype.name})"


class GlobalTensor(IRObject):
    """A view of global memory: ``asc.GlobalTensor()`` then ``set_global_buffer(addr, length)``."""

    __slots__ = ("_dtype",)

    def __init__(self) -> None:
        current_builder()  # only inside kernels
        self.handle: Optional[int] = None  # type: ignore[assignment]
        self._dtype: Optional[dt.DataType] = None

    @classmethod
    def _wrap(cls, handle: int, dtype: dt.DataType) -> GlobalTensor:
        t = cls.__new__(cls)
        t.handle, t._dtype = handle, dtype
        return t

    def _with_handle(self, handle: int) -> GlobalTensor:
        return GlobalTensor._wrap(handle, self.dtype)

    def _require(self) -> int:
        if self.handle is None:
            raise CodegenError("GlobalTensor used before set_global_buffer()")
        return self.handle

    @property
    def dtype(self) -> dt.DataType:
        self._require()
        assert self._dtype is not None
        return self._dtype

    def set_global_buffer(self, buffer: GlobalAddress, buffer_size: Any = None) -> None:
        if not isinstance(buffer, GlobalAddress):
            raise CodegenError(f"set_global_buffer needs a GM address (a GlobalAddress parameter), got {buffer!r}")
        operands = [buffer.handle]
        if buffer_size is not None:
            operands.append(to_int(buffer_size, "buffer_size").handle)
        self.handle = current_builder().op("global_tensor.set_global_buffer", operands)
        self._dtype = buffer.dtype

    def get_value(self, offset: Any) -> Scalar:
        """Element `offset`, read from GM by the scalar unit (pipe S)."""
        i = to_int(offset, "get_value offset")
        return Scalar(current_builder().op("global_tensor.get_value", [self._require(), i.handle]), self.dtype)

    def set_value(self, offset: Any, value: Any) -> None:
        """Writes element `offset` of GM from the scalar unit (pipe S)."""
        i = to_int(offset, "set_value offset")
        v = to_scalar(value, self.dtype) if not isinstance(value, Scalar) else cast(value, self.dtype)
        current_builder().op("global_tensor.set_value", [self._require(), i.handle, v.handle])

    def __getitem__(self, index: Any) -> GlobalTensor:
        start = to_int(_slice_start(index, "GlobalTensor"), "a slice start")
        handle = current_builder().op("global_tensor.slice", [self._require(), start.handle])
        return GlobalTensor._wrap(handle, self.dtype)

    def __repr__(self) -> str:
        return f"GlobalTensor(%{self.handle})"


class LocalTensor(IRObject):
    """A tensor in a core's local memory.

    ``asc.LocalTensor(dtype, position, addr, tile_size)``: `addr` is a byte
    address in the memory of `position` (32-byte aligned), `tile_size` is the
    length in elements.
    """

    __slots__ = ("dtype", "position")

    def __init__(self, dtype: dt.DataType, pos: TPosition = TPosition.VECCALC, addr: Any = 0, tile_size: Any = 0):
        builder = current_builder()
        if not isinstance(dtype, dt.DataType):
            raise CodegenError(f"LocalTensor's first argument is a dtype such as asc.float32, got {dtype!r}")
        if not isinstance(pos, TPosition) or pos in (TPosition.GM, TPosition.MAX):
            raise CodegenError(f"LocalTensor position must be a local asc.TPosition, got {pos!r}")
        attrs = {"dtype": dtype.code, "position": int(pos)}
        if builder.pending_name:
            attrs["name"] = builder.pending_name
        offset = to_int(addr, "LocalTensor address")
        length = to_int(tile_size, "LocalTensor tile_size")
        self.handle = builder.op("local_tensor.create", [offset.handle, length.handle], attrs)
        self.dtype, self.position = dtype, pos

    @classmethod
    def _wrap(cls, handle: int, dtype: dt.DataType, position: TPosition) -> LocalTensor:
        t = cls.__new__(cls)
        t.handle, t.dtype, t.position = handle, dtype, position
        return t

    def _with_handle(self, handle: int) -> LocalTensor:
        return LocalTensor._wrap(handle, self.dtype, self.position)

    def get_position(self) -> TPosition:
        return self.position

    def get_value(self, index: Any) -> Scalar:
        """Element `index`, read by the scalar unit (pipe S)."""
        i = to_int(index, "get_value index")
        return Scalar(current_builder().op("local_tensor.get_value", [self.handle, i.handle]), self.dtype)

    def set_value(self, index: Any, value: Any) -> None:
        """Writes element `index` from the scalar unit (pipe S)."""
        i = to_int(index, "set_value index")
        v = to_scalar(value, self.dtype) if not isinstance(value, Scalar) else cast(value, self.dtype)
        current_builder().op("local_tensor.set_value", [self.handle, i.handle, v.handle])

    def __getitem__(self, index: Any) -> LocalTensor:
        start = to_int(_slice_start(index, "LocalTensor"), "a slice start")
        handle = current_builder().op("local_tensor.slice", [self.handle, start.handle])
        return LocalTensor._wrap(handle, self.dtype, self.position)

    def __repr__(self) -> str:
        return f"LocalTensor(%{self.handle}: {self.dtype.name}, {self.position.name})"


class LocalTensorAuto(LocalTensor):
    """``asc.LocalTensorAuto(dtype, length)``: a local tensor the compiler places in
    the Unified Buffer; kernels using it get every synchronisation inserted."""

    __slots__ = ()

    def __init__(self, dtype: dt.DataType, length: Any, *, double_buffer: bool = False):  # noqa: D107
        """`double_buffer`: a load's destination, which a loop around it builds in pairs of iterations with a
        buffer for each (the double_buffer pass; asc.codegen.regions.load_buffer sets it)."""
        builder = current_builder()
        if not isinstance(dtype, dt.DataType):
            raise CodegenError(f"LocalTensorAuto's first argument is a dtype such as asc.float32, got {dtype!r}")
        if is_runtime(length):
            raise CodegenError("LocalTensorAuto's length must be known while compiling (a ConstExpr or literal)")
        attrs: dict[str, Any] = {"dtype": dtype.code}
        if builder.pending_name:
            attrs["name"] = builder.pending_name
        if double_buffer:
            attrs["double_buffer"] = 1
        self.handle = builder.op("local_tensor.auto", [to_int(length, "length").handle], attrs)
        self.dtype, self.position = dtype, TPosition.VECCALC
