"""TPipe, TQue, TQueBind and TBuf: Ascend C's framework for local memory and
pipe hand-over. Calls emit framework ops; libasc lowers them to local tensors
and the set_flag/wait_flag pairs the framework implies (see
src/passes/lower_framework.cpp)."""

from __future__ import annotations

from typing import Any, Optional

from ...codegen.context import current_builder
from ...errors import CodegenError
from ..core import dtype as dt
from ..core.enums import HardEvent, TPosition
from ..core.ir_value import IRObject, Scalar, to_int
from ..core.tensor import LocalTensor


def _local_position(pos: Any, what: str) -> TPosition:
    if not isinstance(pos, TPosition) or pos in (TPosition.GM, TPosition.MAX):
        raise CodegenError(f"{what} needs a local asc.TPosition, got {pos!r}")
    return pos


def _dtype(value: Any, what: str) -> dt.DataType:
    if not isinstance(value, dt.DataType):
        raise CodegenError(f"{what} needs a dtype such as asc.float32, got {value!r}")
    return value


def _tensor(value: Any, what: str) -> LocalTensor:
    if not isinstance(value, LocalTensor):
        raise CodegenError(f"{what} needs a LocalTensor, got {type(value).__name__}")
    return value


class _FrameworkObject(IRObject):
    __slots__ = ()

    def _with_handle(self, handle: int) -> IRObject:
        raise CodegenError(f"a {type(self).__name__} cannot be re-bound inside a loop or run-time if")


class TQueBind(_FrameworkObject):
    """A queue handing buffers from position `src` to position `dst`."""

    __slots__ = ("src", "dst", "depth")

    def __init__(self, src: TPosition = TPosition.VECIN, dst: TPosition = TPosition.VECIN, depth: int = 1):
        builder = current_builder()
        self.src = _local_position(src, "TQueBind")
        self.dst = _local_position(dst, "TQueBind")
        if not isinstance(depth, int):
            raise CodegenError("the queue depth must be a compile-time int")
        self.depth = depth
        attrs = {"src_position": int(self.src), "dst_position": int(self.dst), "depth": depth}
        if builder.pending_name:
            attrs["name"] = builder.pending_name
        self.handle = builder.op("tque.create", [], attrs)

    def alloc_tensor(self, dtype: dt.DataType) -> LocalTensor:
        """A free buffer of the queue as a tensor of `dtype` (waits until the buffer is free)."""
        d = _dtype(dtype, "alloc_tensor")
        handle = current_builder().op("tque.alloc_tensor", [self.handle], {"dtype": d.code})
        return LocalTensor._wrap(handle, d, self.src)

    def enque(self, tensor: LocalTensor) -> None:
        """Hands `tensor` to the consumer pipe (after the producer's writes)."""
        current_builder().op("tque.enque", [self.handle, _tensor(tensor, "enque").handle])

    def deque(self, dtype: dt.DataType) -> LocalTensor:
        """The oldest enqueued tensor, once the producer's writes are done."""
        d = _dtype(dtype, "deque")
        return LocalTensor._wrap(current_builder().op("tque.deque", [self.handle], {"dtype": d.code}), d, self.dst)

    def free_tensor(self, tensor: LocalTensor) -> None:
        """Returns `tensor`'s buffer to the producer once the consumer is done reading it."""
        current_builder().op("tque.free_tensor", [self.handle, _tensor(tensor, "free_tensor").handle])


class TQue(TQueBind):
    """``asc.TQue(position, depth)``: a queue within one position (VECIN: MTE2 -> V, VECOUT: V -> MTE3)."""

    __slots__ = ()

    def __init__(self, pos: TPosition = TPosition.VECIN, depth: int = 1):
        super().__init__(pos, pos, depth)


class TBuf(_FrameworkObject):
    """``asc.TBuf(position)``: a plain buffer for temporaries; no synchronisation."""

    __slots__ = ("position",)

    def __init__(self, pos: TPosition = TPosition.VECCALC):
        builder = current_builder()
        self.position = _local_position(pos, "TBuf")
        attrs: dict[str, Any] = {"position": int(self.position)}
        if builder.pending_name:
            attrs["name"] = builder.pending_name
        self.handle = builder.op("tbuf.create", [], attrs)

    def get(self, dtype: dt.DataType, len: Any = None, shape: Any = None) -> LocalTensor:  # noqa: A002
        """The buffer (or its first `len` elements) as a tensor of `dtype`."""
        d = _dtype(dtype, "TBuf.get")
        operands = [self.handle] + ([] if len is None else [to_int(len, "len").handle])
        return LocalTensor._wrap(current_builder().op("tbuf.get", operands, {"dtype": d.code}), d, self.position)

    def get_with_offset(self, *args: Any, **kwargs: Any) -> LocalTensor:
        """``get_with_offset(size, buf_offset, dtype)``: `size` elements from byte `buf_offset` (32-byte aligned).

        The order ``(dtype, size, buf_offset)`` is accepted too."""
        if args and isinstance(args[0], dt.DataType):
            args = (*args[1:], args[0])
        names = ("size", "buf_offset", "dtype")
        values = dict(zip(names, args), **kwargs)
        missing = [n for n in names if n not in values]
        if missing:
            raise CodegenError(f"get_with_offset is missing {', '.join(missing)}")
        d = _dtype(values["dtype"], "get_with_offset")
        size, offset = to_int(values["size"], "size"), to_int(values["buf_offset"], "buf_offset")
        operands = [self.handle, size.handle, offset.handle]
        handle = current_builder().op("tbuf.get_with_offset", operands, {"dtype": d.code})
        return LocalTensor._wrap(handle, d, self.position)


class TPipe(_FrameworkObject):
    """``asc.TPipe()``: owns the local memory that queues and buffers get."""

    __slots__ = ()

    def __init__(self) -> None:
        builder = current_builder()
        self.handle = builder.op("tpipe.create")
        builder.current_pipe = self

    def init_buffer(self, *args: Any, **kwargs: Any) -> None:
        """``init_buffer(que, num, len)``: `num` buffers of `len` bytes; ``init_buffer(buf, len)`` for a TBuf."""
        target = args[0] if args else kwargs.pop("que", kwargs.pop("buf", None))
        rest = list(args[1:])
        if isinstance(target, TBuf):
            length = rest[0] if rest else kwargs.get("len", kwargs.get("num"))
            if length is None:
                raise CodegenError("init_buffer(buf, len) needs the length in bytes")
            current_builder().op("tpipe.init_tbuf", [self.handle, target.handle, to_int(length, "len").handle])
            return
        if not isinstance(target, TQueBind):
            raise CodegenError(f"init_buffer needs a TQue or TBuf, got {type(target).__name__}")
        num = rest[0] if rest else kwargs.get("num")
        length = rest[1] if len(rest) > 1 else kwargs.get("len")
        if num is None or length is None:
            raise CodegenError("init_buffer(que, num, len) needs num (buffers) and len (bytes per buffer)")
        operands = [self.handle, target.handle, to_int(num, "num").handle, to_int(length, "len").handle]
        current_builder().op("tpipe.init_buffer", operands)

    def _event_op(self, name: str, event: Any, operands: Optional[list] = None) -> Optional[int]:
        if not isinstance(event, HardEvent):
            raise CodegenError(f"{name} needs an asc.HardEvent, got {event!r}")
        return current_builder().op(f"tpipe.{name}", [self.handle, *(operands or [])], {"event": int(event)})

    def alloc_event_id(self, event: HardEvent = HardEvent.V_S) -> Scalar:
        """Reserves an event id of `event` that the framework does not use."""
        return Scalar(self._event_op("alloc_event_id", event), dt.int32)

    def release_event_id(self, id: Any, event: HardEvent = HardEvent.V_S) -> None:  # noqa: A002
        self._event_op("release_event_id", event, [to_int(id, "id").handle])

    def fetch_event_id(self, event: HardEvent = HardEvent.V_S) -> Scalar:
        """An event id of `event` free right now, without reserving it."""
        return Scalar(self._event_op("fetch_event_id", event), dt.int32)

    def destroy(self) -> None:
        """Accepted for compatibility; buffers are released when the kernel ends."""


def get_tpipe_ptr() -> TPipe:
    """The TPipe the kernel created most recently."""
    pipe = getattr(current_builder(), "current_pipe", None)
    if pipe is None:
        raise CodegenError("get_tpipe_ptr() needs a TPipe created earlier in the kernel")
    return pipe
