"""Reductions: reduce_* over the first `count` elements (or over masked repeats),
whole_reduce_* / block_reduce_* / pair_reduce_sum / repeat_reduce_sum per repeat."""

from __future__ import annotations

from typing import Any

from ...codegen.context import current_builder
from ...errors import CodegenError
from ..core import dtype as dt
from ..core.enums import ReduceOrder
from ..core.ir_value import to_int, to_scalar
from .utils import builtin, require_local
from .vector import mask_operands


def _reduce(name: str, dst: Any, src: Any, tmp: Any, args: tuple, kwargs: dict, results: int) -> None:
    """Count form ``(count)`` or mask form ``(mask, repeat_time, src_rep_stride)``."""
    tensors = [require_local(t, name, r) for t, r in ((dst, "dst"), (src, "src"), (tmp, "shared_tmp_buffer"))]
    handles = [t.handle for t in tensors]
    fields = ["count"] if len(args) + len(kwargs) == 1 else ["mask", "repeat_time", "src_rep_stride"]
    values = dict(zip(fields, args), **kwargs)
    if set(values) == {"count"}:
        handles += [to_int(values["count"], f"{name} count").handle, to_scalar(results, dt.int32).handle]
        current_builder().op(name, handles)
        return
    if set(values) != {"mask", "repeat_time", "src_rep_stride"}:
        raise CodegenError(
            f"{name} takes (dst, src, shared_tmp_buffer, count) or (..., mask, repeat_time, src_rep_stride)"
        )
    mode, mask0, mask1 = mask_operands(values["mask"], True)
    handles += [mask0.handle, mask1.handle, to_int(values["repeat_time"], "repeat_time").handle]
    handles += [to_int(values["src_rep_stride"], "src_rep_stride").handle, to_scalar(results, dt.int32).handle]
    current_builder().op(f"{name}.mask", handles, {"mask_mode": mode})


def _split_cal_index(args: tuple, cal_index: Any) -> tuple[tuple, Any]:
    """cal_index given positionally after count (1 argument) or after the mask form's 3."""
    if len(args) in (2, 4):
        return args[:-1], args[-1]
    return args, cal_index


@builtin
def reduce_sum(dst: Any, src: Any, shared_tmp_buffer: Any, *args: Any, **kwargs: Any) -> None:
    """dst[0] = the sum of src[0:count] (a binary tree within each 256-byte repeat, repeats in order), or
    with ``mask, repeat_time, src_rep_stride`` of the masked elements of each repeat (trees within and across)."""
    _reduce("reduce_sum", dst, src, shared_tmp_buffer, args, kwargs, 1)


@builtin
def reduce_max(dst: Any, src: Any, shared_tmp_buffer: Any, *args: Any, cal_index: bool = False, **kwargs: Any) -> None:
    """dst[0] = max(src[0:count]) (or over masked repeats); with cal_index, dst[1] holds its first index
    (as unsigned bits; in mask form r * src_rep_stride * elements-per-block + e)."""
    args, cal_index = _split_cal_index(args, cal_index)
    _reduce("reduce_max", dst, src, shared_tmp_buffer, args, kwargs, 2 if cal_index else 1)


@builtin
def reduce_min(dst: Any, src: Any, shared_tmp_buffer: Any, *args: Any, cal_index: bool = False, **kwargs: Any) -> None:
    """dst[0] = min(src[0:count]) (or over masked repeats); with cal_index, dst[1] holds its first index."""
    args, cal_index = _split_cal_index(args, cal_index)
    _reduce("reduce_min", dst, src, shared_tmp_buffer, args, kwargs, 2 if cal_index else 1)


def _whole(name: str, dst: Any, src: Any, mask: Any, repeat_time: Any, dst_rep_stride: Any, src_blk_stride: Any,
           src_rep_stride: Any, is_set_mask: bool, order: Any = None) -> None:  # fmt: skip
    d, s = require_local(dst, name, "dst"), require_local(src, name, "src")
    mode, mask0, mask1 = mask_operands(mask, is_set_mask)
    strides = [to_int(v, n) for v, n in ((repeat_time, "repeat_time"), (dst_rep_stride, "dst_rep_stride"),
               (src_blk_stride, "src_blk_stride"), (src_rep_stride, "src_rep_stride"))]  # fmt: skip
    attrs = {"mask_mode": mode}
    if order is not None:
        if not isinstance(order, ReduceOrder):
            raise CodegenError(f"{name}: order must be an asc.ReduceOrder, got {order!r}")
        attrs["order"] = int(order)
    handles = [d.handle, s.handle, mask0.handle, mask1.handle, *(v.handle for v in strides)]
    current_builder().op(name, handles, attrs)


@builtin
def block_reduce_sum(dst: Any, src: Any, repeat: Any, mask: Any, dst_rep_stride: Any, src_blk_stride: Any,
                     src_rep_stride: Any) -> None:  # fmt: skip
    """One sum per 32-byte block of each repeat (8 per repeat); dst_rep_stride counts 8 results."""
    _whole("block_reduce_sum", dst, src, mask, repeat, dst_rep_stride, src_blk_stride, src_rep_stride, True)


@builtin
def block_reduce_max(dst: Any, src: Any, repeat: Any, mask: Any, dst_rep_stride: Any, src_blk_stride: Any,
                     src_rep_stride: Any) -> None:  # fmt: skip
    """One max per 32-byte block of each repeat (8 per repeat)."""
    _whole("block_reduce_max", dst, src, mask, repeat, dst_rep_stride, src_blk_stride, src_rep_stride, True)


@builtin
def block_reduce_min(dst: Any, src: Any, repeat: Any, mask: Any, dst_rep_stride: Any, src_blk_stride: Any,
                     src_rep_stride: Any) -> None:  # fmt: skip
    """One min per 32-byte block of each repeat (8 per repeat)."""
    _whole("block_reduce_min", dst, src, mask, repeat, dst_rep_stride, src_blk_stride, src_rep_stride, True)


@builtin
def pair_reduce_sum(dst: Any, src: Any, repeat_time: Any, mask: Any, dst_rep_stride: Any, src_blk_stride: Any,
                    src_rep_stride: Any, is_set_mask: bool = True) -> None:  # fmt: skip
    """Sums of neighbouring pairs (a0+a1, a2+a3, ...); dst_rep_stride counts 128 bytes."""
    _whole("pair_reduce_sum", dst, src, mask, repeat_time, dst_rep_stride, src_blk_stride, src_rep_stride,
           is_set_mask)  # fmt: skip


@builtin
def repeat_reduce_sum(dst: Any, src: Any, repeat_time: Any, mask: Any, dst_blk_stride: Any, src_blk_stride: Any,
                      dst_rep_stride: Any, src_rep_stride: Any, is_set_mask: bool = True) -> None:  # fmt: skip
    """whole_reduce_sum with a continuous mask (dst_blk_stride is ignored, as on the hardware)."""
    if isinstance(mask, (list, tuple)):
        raise CodegenError("repeat_reduce_sum takes a continuous mask (an element count)")
    _whole("whole_reduce_sum", dst, src, mask, repeat_time, dst_rep_stride, src_blk_stride, src_rep_stride,
           is_set_mask)  # fmt: skip


@builtin
def whole_reduce_sum(dst: Any, src: Any, mask: Any, repeat_time: Any, dst_rep_stride: Any, src_blk_stride: Any,
                     src_rep_stride: Any, is_set_mask: bool = True) -> None:  # fmt: skip
    """For each repeat r: dst[r * dst_rep_stride] = the sum of its masked elements."""
    _whole("whole_reduce_sum", dst, src, mask, repeat_time, dst_rep_stride, src_blk_stride, src_rep_stride,
           is_set_mask)  # fmt: skip


@builtin
def whole_reduce_max(dst: Any, src: Any, mask: Any, repeat_time: Any, dst_rep_stride: Any, src_blk_stride: Any,
                     src_rep_stride: Any, order: ReduceOrder = ReduceOrder.ORDER_VALUE_INDEX,
                     is_set_mask: bool = True) -> None:  # fmt: skip
    """For each repeat: the max of its masked elements and its index, laid out by `order`."""
    _whole("whole_reduce_max", dst, src, mask, repeat_time, dst_rep_stride, src_blk_stride, src_rep_stride,
           is_set_mask, order)  # fmt: skip


@builtin
def whole_reduce_min(dst: Any, src: Any, mask: Any, repeat_time: Any, dst_rep_stride: Any, src_blk_stride: Any,
                     src_rep_stride: Any, order: ReduceOrder = ReduceOrder.ORDER_VALUE_INDEX,
                     is_set_mask: bool = True) -> None:  # fmt: skip
    """For each repeat: the min of its masked elements and its index, laid out by `order`."""
    _whole("whole_reduce_min", dst, src, mask, repeat_time, dst_rep_stride, src_blk_stride, src_rep_stride,
           is_set_mask, order)  # fmt: skip
