"""TPipe, TQue, TQueBind and TBuf: Ascend C's framework for local memory and
pipe hand-over. Calls emit framework ops; libasc lowers them to local tensors
and the set_flag/wait_flag pairs the framework implies (see
src/passes/lower_framework.cpp). TBufPool is in tbuf_pool.py."""

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


def _user_positions(args: tuple, kwargs: dict, what: str) -> dict[str, int]:
    """enque/deque's optional (src_user_pos, dst_user_pos): a hand-over from or to GM."""
    src = args[0] if args else kwargs.pop("src_user_pos", None)
    dst = args[1] if len(args) > 1 else kwargs.pop("dst_user_pos", None)
    if kwargs or len(args) > 2:
        raise CodegenError(f"{what}: unexpected arguments {list(kwargs) or list(args[2:])}")
    if src is None and dst is None:
        return {}
    if not isinstance(src, TPosition) or not isinstance(dst, TPosition):
        raise CodegenError(f"{what} needs both src_user_pos and dst_user_pos as asc.TPosition")
    return {"src_user_pos": int(src), "dst_user_pos": int(dst)}


def _rebind(target: LocalTensor, value: LocalTensor) -> None:
    """The in-place forms (alloc_tensor(t), deque(t)): `t` now names the queue's tensor."""
    if getattr(target, "_mutable", False):
        current_builder().op("assign", [target.handle, value.handle])
    else:
        target.handle = value.handle
    target.position = value.position
    target._user_tag = value._user_tag


class _FrameworkObject(IRObject):
    __slots__ = ()

    def _with_handle(self, handle: int) -> IRObject:
        raise CodegenError(f"a {type(self).__name__} cannot be re-bound inside a loop or run-time if")


class _Allocator(_FrameworkObject):
    """What TPipe and TBufPool share: queues, bufs and pools are carved from them."""

    __slots__ = ()

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

    def init_buf_pool(self, buf_pool: Any, len: Any = 0, share_buf: Any = None) -> None:  # noqa: A002
        """`len` bytes of this allocator become `buf_pool`'s; with `share_buf`, the bytes of that pool (reused)."""
        from .tbuf_pool import TBufPool

        for value, what in ((buf_pool, "buf_pool"), (share_buf, "share_buf")):
            if value is not None and not isinstance(value, TBufPool):
                raise CodegenError(f"init_buf_pool: {what} must be an asc.TBufPool, got {type(value).__name__}")
        if buf_pool is None:
            raise CodegenError("init_buf_pool needs buf_pool")
        operands = [self.handle, buf_pool.handle, to_int(len, "len").handle]
        if share_buf is not None:
            operands.append(share_buf.handle)
        current_builder().op("tpipe.init_buf_pool", operands)


class TQueBind(_FrameworkObject):
    """A queue handing buffers from position `src` to position `dst`."""

    __slots__ = ("src", "dst", "depth", "mask", "_tags")

    def __init__(self, src: TPosition = TPosition.VECIN, dst: TPosition = TPosition.VECIN, depth: int = 0,
                 mask: int = 0):  # fmt: skip
        builder = current_builder()
        self.src = _local_position(src, "TQueBind")
        self.dst = _local_position(dst, "TQueBind")
        if not isinstance(depth, int) or not isinstance(mask, int):
            raise CodegenError("the queue depth and mask must be compile-time ints")
        self.depth = depth
        self.mask = mask  # Ascend C's template argument; it changes nothing on the Model
        # The user tags (set_user_tag) of the tensors enqueued and not yet dequeued, oldest first: on the board a
        # tag belongs to the buffer, so the tensor deque hands over carries the one set before enque.
        self._tags: list[Any] = []
        attrs = {"src_position": int(self.src), "dst_position": int(self.dst), "depth": depth}
        if builder.pending_name:
            attrs["name"] = builder.pending_name
        self.handle = builder.op("tque.create", [], attrs)

    def alloc_tensor(self, dtype: Any = None, *, tensor: Optional[LocalTensor] = None) -> Optional[LocalTensor]:
        """A free buffer of the queue as a tensor of `dtype` (waits until the buffer is free).

        ``alloc_tensor(t)`` with a LocalTensor makes `t` that tensor (Ascend C's in-place form)."""
        target = dtype if isinstance(dtype, LocalTensor) else tensor
        d = target.dtype if target is not None else _dtype(dtype, "alloc_tensor")
        handle = current_builder().op("tque.alloc_tensor", [self.handle], {"dtype": d.code})
        result = LocalTensor._wrap(handle, d, self.src)
        if target is None:
            return result
        _rebind(target, result)
        return None

    def enque(self, tensor: LocalTensor, *positions: Any, **kwargs: Any) -> bool:
        """Hands `tensor` to the consumer pipe (after the producer's writes).

        ``enque(t, src_user_pos, dst_user_pos)``: the hand-over of a user path from or to GM (e.g. GM -> VECIN on
        a VECIN/VECOUT TQueBind: MTE2 hands to V) instead of the queue's own."""
        attrs = _user_positions(positions, kwargs, "enque")
        current_builder().op("tque.enque", [self.handle, _tensor(tensor, "enque").handle], attrs)
        self._tags.append(tensor._user_tag)
        return True

    def deque(self, dtype: Any = None, *positions: Any, tensor: Optional[LocalTensor] = None,
              **kwargs: Any) -> Optional[LocalTensor]:  # fmt: skip
        """The oldest enqueued tensor, once the producer's writes are done.

        ``deque(dtype, src_user_pos, dst_user_pos)`` waits for that user hand-over (see enque);
        ``deque(t)`` with a LocalTensor makes `t` the dequeued tensor."""
        target = dtype if isinstance(dtype, LocalTensor) else tensor
        d = target.dtype if target is not None else _dtype(dtype if dtype is not None else kwargs.pop("dtype", None),
                                                           "deque")  # fmt: skip
        attrs: dict[str, Any] = {"dtype": d.code, **_user_positions(positions, kwargs, "deque")}
        result = LocalTensor._wrap(current_builder().op("tque.deque", [self.handle], attrs), d, self.dst)
        if self._tags:
            result._user_tag = self._tags.pop(0)
        if target is None:
            return result
        _rebind(target, result)
        return None

    def _query(self, what: int, dtype: dt.DataType) -> Scalar:
        return Scalar(current_builder().op("tque.query", [self.handle], {"what": what}), dtype)

    def vacant_in_que(self) -> Scalar:
        """Whether another tensor can be enqueued: fewer than `depth` are in the queue (`num` if depth is 0)."""
        return self._query(0, dt.bool_)

    def has_tensor_in_que(self) -> Scalar:
        """Whether a tensor is enqueued and not yet dequeued."""
        return self._query(1, dt.bool_)

    def get_tensor_count_in_que(self) -> Scalar:
        """How many tensors are enqueued and not yet dequeued (int32)."""
        return self._query(2, dt.int32)

    def has_idle_buffer(self) -> Scalar:
        """Whether alloc_tensor would find a buffer that is not allocated (fewer than `num` are in use)."""
        return self._query(3, dt.bool_)

    def free_all_event(self) -> None:
        """Waits for every buffer freed so far to be handed back, so the queue holds no pending event."""
        current_builder().op("tque.free_all_event", [self.handle])

    def free_tensor(self, tensor: LocalTensor) -> None:
        """Returns `tensor`'s buffer to the producer once the consumer is done reading it."""
        current_builder().op("tque.free_tensor", [self.handle, _tensor(tensor, "free_tensor").handle])


class TQue(TQueBind):
    """``asc.TQue(position, depth)``: a queue within one position (VECIN: MTE2 -> V, VECOUT: V -> MTE3)."""

    __slots__ = ()

    def __init__(self, pos: TPosition = TPosition.VECIN, depth: Optional[int] = 1, mask: int = 0):
        super().__init__(pos, pos, 1 if depth is None else depth, mask)


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
        whole = len is None or (isinstance(len, int) and len == 0)  # pyasc: a len of 0 means the whole buffer
        operands = [self.handle] + ([] if whole else [to_int(len, "len").handle])
        return LocalTensor._wrap(current_builder().op("tbuf.get", operands, {"dtype": d.code}), d, self.position)

    def alloc_tensor(self, dtype: dt.DataType) -> LocalTensor:
        """The whole buffer as a tensor of `dtype`, as ``get(dtype)`` (the queue spelling pyasc kernels use for
        a TBuf too; a TBuf has one buffer and no hand-over, so there is nothing to free)."""
        return self.get(dtype)

    def free_tensor(self, tensor: LocalTensor) -> None:
        """Nothing to do: a TBuf's buffer is the TBuf's for the whole kernel."""

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


class TPipe(_Allocator):
    """``asc.TPipe()``: owns the local memory that queues, buffers and pools get."""

    __slots__ = ()

    def __init__(self) -> None:
        builder = current_builder()
        self.handle = builder.op("tpipe.create")
        builder.current_pipe = self

    def init(self) -> None:
        """Puts the pipe in its initial state (as reset does); nothing is held right after TPipe()."""
        self.reset()

    def reset(self) -> None:
        """Waits for every queue's pending hand-backs, then forgets the pipe's queues, bufs and pools: their event
        ids are free and init_buffer hands out the memory from its start again (at the kernel's top level)."""
        current_builder().op("tpipe.reset", [self.handle])

    def get_base_addr(self, logic_pos: TPosition = TPosition.VECCALC) -> Scalar:
        """The first byte the pipe hands out in `logic_pos`'s memory (in the Unified Buffer, above LocalTensorAuto)."""
        pos = _local_position(logic_pos, "get_base_addr")
        return Scalar(current_builder().op("tpipe.get_base_addr", [self.handle], {"position": int(pos)}), dt.int32)

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
