"""GM addresses, GlobalTensor and LocalTensor as seen inside a kernel."""

from __future__ import annotations

from typing import Any, Optional

from ...codegen.context import current_builder
from ...errors import CodegenError
from . import dtype as dt
from .enums import CacheMode, CacheRwMode, TPosition
from .ir_value import IRObject, Scalar, cast, const, is_runtime, to_int, to_scalar
from .shape_info import ShapeInfo

ADDR_LIST_SIZE = 16  # NCHW_CONV_ADDR_LIST_SIZE: the addresses of one trans_data_to_5hd list


def _rebind(tensor: IRObject, handle: int) -> None:
    """A method that changes the tensor (set_size, set_addr_with_offset): a mutable variable (a name assigned in
    a loop or run-time if) takes the new value by an assignment, any other tensor object its new IR value."""
    if getattr(tensor, "_mutable", False):
        current_builder().op("assign", [tensor.handle, handle])
    else:
        tensor.handle = handle


def _shape_info_arg(shape_info: Any, what: str) -> ShapeInfo:
    if not isinstance(shape_info, ShapeInfo):
        raise CodegenError(f"{what}: expected an asc.ShapeInfo, got {type(shape_info).__name__}")
    return shape_info


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

    __slots__ = ("_dtype", "_shape_info")

    def __init__(self) -> None:
        current_builder()  # only inside kernels
        self.handle: Optional[int] = None  # type: ignore[assignment]
        self._dtype: Optional[dt.DataType] = None
        self._shape_info: Optional[ShapeInfo] = None

    @classmethod
    def _wrap(cls, handle: int, dtype: dt.DataType) -> GlobalTensor:
        t = cls.__new__(cls)
        t.handle, t._dtype, t._shape_info = handle, dtype, None
        return t

    def _with_handle(self, handle: int) -> GlobalTensor:
        t = GlobalTensor._wrap(handle, self.dtype)
        t._shape_info = self._shape_info
        return t

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

    def __call__(self, offset: Any) -> Scalar:
        """``t(i)``: element i (Ascend C's operator()), as get_value."""
        return self.get_value(offset)

    def get_size(self) -> Scalar:
        """The element count given to set_global_buffer (0 when it was given none), a uint64."""
        return Scalar(current_builder().op("global_tensor.get_size", [self._require()]), dt.uint64)

    def get_phy_addr(self, offset: Any = 0) -> GlobalAddress:
        """The GM address of element `offset` (Ascend C's GetPhyAddr)."""
        off = to_int(offset, "get_phy_addr offset")
        return GlobalAddress(
            current_builder().op("global_tensor.get_phy_addr", [self._require(), off.handle]), self.dtype
        )

    def set_shape_info(self, shape_info: ShapeInfo) -> None:
        """The shape this tensor reports by get_shape_info (compile-time: held by the tensor object)."""
        self._shape_info = _shape_info_arg(shape_info, "set_shape_info")

    def get_shape_info(self) -> ShapeInfo:
        """The ShapeInfo set by set_shape_info; like Ascend C there is none by default (an empty ShapeInfo)."""
        return self._shape_info if self._shape_info is not None else ShapeInfo()

    def set_l2_cache_hint(self, mode: Any = CacheMode.CACHE_MODE_NORMAL, rw_mode: Any = CacheRwMode.RW) -> None:
        """Whether GM accesses of this tensor go through the L2 cache: a performance hint only, so results are
        the same with any hint. The Model's timing reads it, for the accesses rw_mode names: CACHE_MODE_DISABLE's
        bypass L2 (never re-read from it or held in it, taking none of its room), PERSISTENT's claim L2's room
        before NORMAL's, LAST's after (docs/profiling.md). Not emitted: Ascend C supports SetL2CacheHint only
        in custom-operator projects, not in the direct kernel launches asc builds. Slices taken after the call
        carry the hint, as copies of an Ascend C GlobalTensor do."""
        if not isinstance(mode, CacheMode):
            raise CodegenError(f"set_l2_cache_hint: mode must be an asc.CacheMode, got {mode!r}")
        if not isinstance(rw_mode, CacheRwMode):
            raise CodegenError(f"set_l2_cache_hint: rw_mode must be an asc.CacheRwMode, got {rw_mode!r}")
        self.handle = current_builder().op(
            "global_tensor.set_l2_cache_hint", [self._require()], {"mode": int(mode), "rw_mode": int(rw_mode)}
        )

    def __getitem__(self, index: Any) -> GlobalTensor:
        start = to_int(_slice_start(index, "GlobalTensor"), "a slice start")
        handle = current_builder().op("global_tensor.slice", [self._require(), start.handle])
        return GlobalTensor._wrap(handle, self.dtype)

    def __repr__(self) -> str:
        return f"GlobalTensor(%{self.handle})"


class LocalTensor(IRObject):
    """A tensor in a core's local memory.

    ``asc.LocalTensor(dtype, pos, addr, tile_size)``: `addr` is a byte address in the
    memory of `pos` (32-byte aligned), `tile_size` the length in elements.
    ``asc.LocalTensor(dtype)`` and ``asc.LocalTensor()`` are tensors with no memory yet
    (Ascend C's ``LocalTensor<T> t;``): set_addr_with_offset gives them one.
    """

    __slots__ = ("dtype", "position", "_shape_info", "_user_tag")

    def __init__(
        self, dtype: Optional[dt.DataType] = None, pos: Optional[TPosition] = None, addr: Any = 0, tile_size: Any = 0
    ):
        builder = current_builder()
        self._shape_info: Optional[ShapeInfo] = None
        self._user_tag: Any = 0
        if dtype is not None and not isinstance(dtype, dt.DataType):
            raise CodegenError(f"LocalTensor's first argument is a dtype such as asc.float32, got {dtype!r}")
        declared = pos is None and not is_runtime(addr) and addr == 0 and not is_runtime(tile_size) and tile_size == 0
        if dtype is None or declared:
            # declared only (Ascend C's `LocalTensor<T> t;`): an address comes from set_addr_with_offset
            if not declared:
                raise CodegenError("LocalTensor() without a dtype takes no position, address or size")
            self.handle = None  # type: ignore[assignment]
            self.dtype, self.position = dtype, TPosition.VECCALC  # type: ignore[assignment]
            return
        if pos is None:
            pos = TPosition.VECCALC
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
        t._shape_info, t._user_tag = None, 0
        return t

    def _with_handle(self, handle: int) -> LocalTensor:
        t = LocalTensor._wrap(handle, self.dtype, self.position)
        t._shape_info, t._user_tag = self._shape_info, self._user_tag
        return t

    def _require(self, what: str) -> int:
        if self.handle is None and self.dtype == dt.uint64 and what in ("get_value", "set_value", "trans_data_to_5hd"):
            self._materialise_address_list(what)
        if self.handle is None:
            raise CodegenError(f"LocalTensor.{what}: the tensor has no memory yet (declared by LocalTensor(dtype); "
                               "give it some with set_addr_with_offset)")  # fmt: skip
        return self.handle

    def _materialise_address_list(self, what: str) -> None:
        """A declared ``LocalTensor(asc.uint64)`` written element by element is pyasc's address list of
        trans_data_to_5hd (16 Unified Buffer addresses): it gets a compiler-placed Unified Buffer tensor of
        ADDR_LIST_SIZE (16) elements, at the kernel's top level."""
        builder = current_builder()
        if builder.depth:
            raise CodegenError(f"LocalTensor.{what}: a LocalTensor(asc.uint64) declared without memory gets its 16 "
                               "address slots where it is first used, which must be outside loops and branches; "
                               "use it once before them or give it memory (a TQue or TBuf tensor)")  # fmt: skip
        length = const(ADDR_LIST_SIZE, dt.int32)
        self.handle = builder.op("local_tensor.auto", [length.handle], {"dtype": dt.uint64.code})
        self.position = TPosition.VECCALC

    def get_position(self) -> TPosition:
        return self.position

    def get_value(self, index: Any) -> Scalar:
        """Element `index`, read by the scalar unit (pipe S)."""
        i = to_int(index, "get_value index")
        return Scalar(
            current_builder().op("local_tensor.get_value", [self._require("get_value"), i.handle]), self.dtype
        )

    def __call__(self, index: Any) -> Scalar:
        """``t(i)``: element i (Ascend C's operator()), as get_value."""
        return self.get_value(index)

    def set_value(self, index: Any, value: Any) -> None:
        """Writes element `index` from the scalar unit (pipe S)."""
        i = to_int(index, "set_value index")
        v = to_scalar(value, self.dtype) if not isinstance(value, Scalar) else cast(value, self.dtype)
        builder = current_builder()
        handle = self._require("set_value")
        builder.op("local_tensor.set_value", [handle, i.handle, v.handle])
        if isinstance(value, Scalar) and value.handle in builder.addr_dtypes:  # an address list
            builder.addr_dtypes[handle] = builder.addr_dtypes[value.handle]

    def get_size(self) -> Scalar:
        """The length in elements (an int32)."""
        return Scalar(current_builder().op("local_tensor.get_size", [self._require("get_size")]), dt.int32)

    def get_length(self) -> Scalar:
        """The length in bytes: get_size() elements of sizeof(dtype)."""
        return self.get_size() * self.dtype.sizeof()

    def set_size(self, size: Any = 0) -> None:
        """Sets the length in elements: later uses of this tensor see `size` elements."""
        n = to_int(size, "set_size size")
        _rebind(self, current_builder().op("local_tensor.set_size", [self._require("set_size"), n.handle]))

    def set_buffer_len(self, data_len: Any) -> None:
        """Sets the length in bytes (Ascend C's SetBufferLen): set_size(data_len // sizeof(dtype))."""
        if not is_runtime(data_len) and int(data_len) < 0:
            raise CodegenError(f"set_buffer_len {data_len} is negative")
        self.set_size(data_len // self.dtype.sizeof())

    def get_phy_addr(self, offset: Any = 0) -> Scalar:
        """The byte address (a uint64) of element `offset` in the tensor's local memory."""
        off = to_int(offset, "get_phy_addr offset")
        builder = current_builder()
        handle = builder.op("local_tensor.get_phy_addr", [self._require("get_phy_addr"), off.handle])
        builder.addr_dtypes[handle] = self.dtype  # what an address list of trans_data_to_5hd points at
        return Scalar(handle, dt.uint64)

    def reinterpret_cast(self, dtype: dt.DataType) -> LocalTensor:
        """The same bytes seen as `dtype` elements: the length scales by the element sizes."""
        if not isinstance(dtype, dt.DataType) or not dtype.is_numeric() or dtype.code >= 100:
            raise CodegenError(f"reinterpret_cast needs an integer or floating-point asc dtype, got {dtype!r}")
        if dtype == self.dtype:
            return self
        handle = current_builder().op(
            "local_tensor.reinterpret_cast", [self._require("reinterpret_cast")], {"dtype": dtype.code}
        )
        t = LocalTensor._wrap(handle, dtype, self.position)
        t._shape_info = self._shape_info
        return t

    def set_addr_with_offset(self, src: LocalTensor, offset: Any) -> None:
        """Makes this tensor a view of `src` from its element `offset` (counted in src's dtype), keeping this
        tensor's dtype (a tensor declared without one takes src's)."""
        if not isinstance(src, LocalTensor):
            raise CodegenError(f"set_addr_with_offset: src must be a LocalTensor, got {type(src).__name__}")
        view = src[offset]
        if self.dtype is not None and self.dtype != src.dtype:
            view = view.reinterpret_cast(self.dtype)
        if self.handle is None:
            self.handle, self.dtype = view.handle, view.dtype
        else:
            _rebind(self, view.handle)
        self.position = src.position

    def set_shape_info(self, shape_info: ShapeInfo) -> None:
        """The shape this tensor reports by get_shape_info (compile-time: held by the tensor object)."""
        self._shape_info = _shape_info_arg(shape_info, "set_shape_info")

    def get_shape_info(self) -> ShapeInfo:
        """The ShapeInfo set by set_shape_info; like Ascend C there is none by default (an empty ShapeInfo)."""
        return self._shape_info if self._shape_info is not None else ShapeInfo()

    def set_user_tag(self, tag: Any = 0) -> None:
        """A number of the user's for this tensor, read back by get_user_tag; it travels with the tensor through a
        queue (enque, then deque), as the board keeps it with the buffer."""
        self._user_tag = to_int(tag, "set_user_tag tag") if is_runtime(tag) else int(tag)

    def get_user_tag(self) -> Any:
        """The tag set by set_user_tag (0 if none was), an int32."""
        tag = self._user_tag
        return tag if is_runtime(tag) else to_scalar(tag, dt.int32)

    def print(self, data_len: Any) -> None:
        """Prints the first `data_len` elements after the launch (as dump_tensor with desc 0)."""
        from ..basic.debug import dump_tensor

        self._require("print")
        dump_tensor(self, 0, data_len)

    def to_file(self, file_name: str) -> None:
        """Ascend C's ToFile writes the tensor to a file only in its CPU debug build."""
        raise CodegenError("LocalTensor.to_file exists only in Ascend C's CPU debug build; use asc.dump_tensor")

    def __getitem__(self, index: Any) -> LocalTensor:
        start = to_int(_slice_start(index, "LocalTensor"), "a slice start")
        handle = current_builder().op("local_tensor.slice", [self._require("[]"), start.handle])
        return LocalTensor._wrap(handle, self.dtype, self.position)

    def __repr__(self) -> str:
        name = self.dtype.name if self.dtype is not None else "?"
        return f"LocalTensor(%{self.handle}: {name}, {self.position.name})"


def _auto_length(shape: Any) -> Any:
    """LocalTensorAuto's length: an element count, or the product of a shape's dimensions."""
    if isinstance(shape, (tuple, list)):
        if not shape:
            raise CodegenError("LocalTensorAuto's shape has no dimensions")
        length: Any = 1
        for d in shape:
            length = length * d
        return length
    return shape


class LocalTensorAuto(LocalTensor):
    """``asc.LocalTensorAuto(dtype, length)`` or ``(dtype, (d1, d2, ...))``: a local tensor the compiler places
    in the Unified Buffer; kernels using it get every synchronisation inserted."""

    __slots__ = ("shape",)
    __asc_builtin__ = True  # called with run-time lengths too

    def __init__(self, dtype: dt.DataType, shape: Any, *, double_buffer: bool = False,
                 position: TPosition = TPosition.VECCALC):  # fmt: skip # noqa: D107
        """`double_buffer`: a load's destination, which a loop around it builds in pairs of iterations with a
        buffer for each (the double_buffer pass; asc.codegen.regions.load_buffer sets it). `position`: VECCALC
        (the Unified Buffer), or a cube core's A1/B1/C1 (L1), A2 (L0A), B2 (L0B) or CO1 (L0C), placed there."""
        builder = current_builder()
        if not isinstance(dtype, dt.DataType):
            raise CodegenError(f"LocalTensorAuto's first argument is a dtype such as asc.float32, got {dtype!r}")
        length = _auto_length(shape)
        if is_runtime(length) and double_buffer:  # a run-time length is placed when the kernel runs, unpaired
            raise CodegenError("a double-buffered LocalTensorAuto's length must be known while compiling")
        attrs: dict[str, Any] = {"dtype": dtype.code}
        if builder.pending_name:
            attrs["name"] = builder.pending_name
        if double_buffer:
            attrs["double_buffer"] = 1
        if position != TPosition.VECCALC:
            attrs["position"] = int(position)
        self.handle = builder.op("local_tensor.auto", [to_int(length, "length").handle], attrs)
        self.dtype, self.position = dtype, position
        self.shape = list(shape) if isinstance(shape, (tuple, list)) else [shape]
        self._shape_info, self._user_tag = None, 0
