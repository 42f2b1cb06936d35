"""duplicate: fill a tensor with one scalar, in count mode or mask/repeat mode."""

from __future__ import annotations

from typing import Any

from .utils import builtin
from .vector import emit


@builtin
def duplicate(dst: Any, scalar: Any, *args: Any, **kwargs: Any) -> None:
    """dst[i] = scalar on pipe V (half, float, int16/uint16, int32/uint32):
    ``duplicate(dst, scalar, count)`` or
    ``duplicate(dst, scalar, mask, repeat_times, dst_block_stride, dst_repeat_stride, is_set_mask=True)``."""
    emit("duplicate", [(dst, "dst")], scalar, args, kwargs, None, ("dst_block_stride", "dst_repeat_stride"))
