"""TBufPool: a region of a TPipe's (or a parent pool's) memory whose queues and
bufs are carved from it; two pools sharing one region reuse the same bytes at
different times, with reset() between them."""

from __future__ import annotations

from typing import Any, Optional

from ...codegen.context import current_builder
from ...errors import CodegenError
from ..core.enums import TPosition
from .tpipe import _Allocator, _local_position


class TBufPool(_Allocator):
    """``asc.TBufPool(pos, buf_id_size=4)``: a pool in `pos`'s memory holding at most `buf_id_size` buffers."""

    __slots__ = ("position", "buf_id_size")

    def __init__(self, pos: Optional[TPosition] = None, buf_id_size: Any = 4):
        builder = current_builder()
        self.position = _local_position(pos if pos is not None else TPosition.VECCALC, "TBufPool")
        if not isinstance(buf_id_size, int):
            raise CodegenError("TBufPool's buf_id_size must be a compile-time int")
        self.buf_id_size = buf_id_size
        attrs: dict[str, Any] = {"position": int(self.position), "buf_id_size": buf_id_size}
        if builder.pending_name:
            attrs["name"] = builder.pending_name
        self.handle = builder.op("tbufpool.create", [], attrs)

    def reset(self) -> None:
        """Ends the pool's work before its bytes are used by another pool: waits for every pending hand-back of its
        queues and puts a PIPE_ALL barrier. Its queues and bufs keep their buffers and start over."""
        current_builder().op("tbufpool.reset", [self.handle])
