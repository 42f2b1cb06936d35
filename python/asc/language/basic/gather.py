"""Gathering instructions on pipe V: brcb, gather, gatherb, gather_mask, get_gather_mask_remain_count,
bilinear_interpolation (and scatter, which Atlas A2 does not have)."""

from __future__ import annotations

import warnings
from typing import Any

from ...codegen.context import current_builder
from ...errors import CodegenError, PlatformWarning
from ..core import dtype as dt
from ..core.enums import GatherMaskMode
from ..core.ir_value import Scalar, cast, to_int
from ..core.layout_params import BrcbRepeatParams, GatherMaskParams
from ..core.param_structs import GatherRepeatParams
from ..core.tensor import LocalTensor
from .utils import builtin, require_local
from .vector import _mask_operands, mask_operands


@builtin
def brcb(dst: Any, src0: Any, repeat_times: Any, repeat_params: Any) -> None:
    """Each repeat takes 8 elements of src0 and fills one 32-byte block of dst with each
    (blocks ``repeat_params.dst_blk_stride`` apart, repeats ``dst_rep_stride`` blocks apart)."""
    if not isinstance(repeat_params, BrcbRepeatParams):
        raise CodegenError(f"brcb: repeat_params must be an asc.BrcbRepeatParams, got {type(repeat_params).__name__}")
    d, s = require_local(dst, "brcb", "dst"), require_local(src0, "brcb", "src0")
    ints = [
        to_int(v, "brcb").handle for v in (repeat_times, repeat_params.dst_blk_stride, repeat_params.dst_rep_stride)
    ]
    current_builder().op("brcb", [d.handle, s.handle, *ints])


@builtin
def gather(dst: Any, src: Any, src_offset: Any, src_base: Any, *args: Any, **kwargs: Any) -> None:
    """dst[i] = the src element at byte offset ``src_base + src_offset[i]`` (src_offset: uint32 LocalTensor).
    ``gather(..., count)`` or ``gather(..., mask, repeat_times, dst_rep_stride)``: repeat r fills 256 bytes of
    dst at ``r * dst_rep_stride`` blocks from offsets ``[r * N, (r + 1) * N)``, elements the mask selects."""
    d = require_local(dst, "gather", "dst")
    handles = [d.handle, require_local(src, "gather", "src").handle]
    handles += [require_local(src_offset, "gather", "src_offset").handle, to_int(src_base, "src_base").handle]
    fields = ["count"] if len(args) + len(kwargs) <= 1 else ["mask", "repeat_times", "dst_rep_stride"]
    values = dict(zip(fields, args), **kwargs)
    if set(values) == {"count"}:
        current_builder().op("gather", [*handles, to_int(values["count"], "gather count").handle])
        return
    if set(values) != {"mask", "repeat_times", "dst_rep_stride"}:
        raise CodegenError("gather takes count, or mask, repeat_times and dst_rep_stride")
    mode, mask0, mask1 = mask_operands(values["mask"], True)
    handles += [mask0.handle, mask1.handle]
    handles += [to_int(values[f], f"gather {f}").handle for f in ("repeat_times", "dst_rep_stride")]
    current_builder().op("gather.mask", handles, {"mask_mode": mode})


@builtin
def gather_mask(
    dst: Any,
    src0: Any,
    src1_pattern: Any,
    reduce_mode: Any,
    mask: Any,
    params: Any,
    gather_mask_mode: Any = GatherMaskMode.DEFAULT,
) -> Scalar:
    """Keeps the src0 elements whose pattern bit is set, packed from dst[0]; returns how many were kept.
    `src1_pattern` is a uint16 (16-bit data) / uint32 (32-bit data) LocalTensor of bits, or a built-in
    pattern 1..7 (1 even elements, 2 odd, 3-6 one of every four, 7 all). ``reduce_mode=False``: each repeat
    covers 256 bytes and `mask` is unused; ``True``: each repeat covers `mask` elements."""
    if not isinstance(params, GatherMaskParams):
        raise CodegenError(f"gather_mask: params must be an asc.GatherMaskParams, got {type(params).__name__}")
    if gather_mask_mode != GatherMaskMode.DEFAULT:
        raise CodegenError("gather_mask: gather_mask_mode must be asc.GatherMaskMode.DEFAULT")
    d = require_local(dst, "gather_mask", "dst")
    s = require_local(src0, "gather_mask", "src0")
    if isinstance(src1_pattern, LocalTensor):
        name, pattern = "gather_mask", src1_pattern.handle
    else:
        name, pattern = "gather_mask.pattern", to_int(src1_pattern, "src1_pattern").handle
    mode = cast(to_int(reduce_mode, "reduce_mode"), dt.int64) if not isinstance(reduce_mode, bool) else int(reduce_mode)
    ints = [mode, mask, params.src0_block_stride, params.repeat_times, params.src0_repeat_stride]
    ints.append(params.src1_repeat_stride)
    handles = [d.handle, s.handle, pattern, *(to_int(v, "gather_mask").handle for v in ints)]
    return Scalar(current_builder().op(name, handles), dt.uint64)


@builtin
def gatherb(dst: Any, src0: Any, offset: Any, repeat_times: Any, repeat_params: Any) -> None:
    """``AscendC::Gatherb``: repeat r copies the 8 32-byte blocks of src0 at byte offsets
    ``offset[8r .. 8r + 7]`` (a uint32 LocalTensor; each a multiple of 32) to the dst blocks
    ``r * repeat_params.dst_rep_stride + b * repeat_params.dst_blk_stride`` (an asc.GatherRepeatParams); no mask.
    16- and 32-bit dtypes; repeat_times 0..255 (0 copies nothing)."""
    if not isinstance(repeat_params, GatherRepeatParams):
        raise CodegenError(
            f"gatherb: repeat_params must be an asc.GatherRepeatParams, got {type(repeat_params).__name__}"
        )
    handles = [
        require_local(t, "gatherb", role).handle for t, role in ((dst, "dst"), (src0, "src0"), (offset, "offset"))
    ]
    ints = (repeat_times, repeat_params.dst_blk_stride, repeat_params.dst_rep_stride)
    handles += [to_int(v, "gatherb").handle for v in ints]
    current_builder().op("gatherb", handles)


@builtin
def get_gather_mask_remain_count() -> Scalar:
    """``AscendC::GetGatherMaskRemainCount``: how many elements this core's last gather_mask kept (0 before
    any), a uint64 read once the vector instructions issued before it ran."""
    return Scalar(current_builder().op("get_gather_mask_remain_count", []), dt.uint64)


@builtin
def bilinear_interpolation(
    dst: Any,
    src0: Any,
    src0_offset: Any,
    src1: Any,
    mask: Any,
    h_repeat: Any,
    repeat_mode: Any,
    dst_blk_stride: Any,
    v_r_offset: Any,
    v_repeat: Any,
    shared_tmp_buffer: Any,
) -> None:
    """``AscendC::BilinearInterpolation`` (float16): v_repeat vertical iterations of h_repeat horizontal ones;
    horizontal iteration k reads the 8 src0 blocks at byte offsets ``src0_offset[8k .. 8k + 7]`` (uint32),
    multiplies each by ``src1[k]`` (``repeat_mode=False``) or block b by ``src1[8k + b]`` (True) and adds the
    products into the 8 dst blocks at ``v * v_r_offset`` elements + ``b * dst_blk_stride`` blocks (the first
    horizontal iteration writes them). `mask` (an int or a [low, high] pair) selects elements of the 128;
    v_r_offset is 128..65534 elements, a multiple of 16; shared_tmp_buffer is a uint8 LocalTensor."""
    tensors = [(dst, "dst"), (src0, "src0"), (src0_offset, "src0_offset"), (src1, "src1")]
    handles = [require_local(t, "bilinear_interpolation", role).handle for t, role in tensors]
    mode, mask0, mask1 = _mask_operands(mask)
    handles += [mask0.handle, mask1.handle]
    if isinstance(repeat_mode, bool):
        repeat_mode = int(repeat_mode)
    elif isinstance(repeat_mode, Scalar) and repeat_mode.dtype == dt.bool_:
        repeat_mode = cast(repeat_mode, dt.int32)
    for value, what in ((h_repeat, "h_repeat"), (repeat_mode, "repeat_mode"), (dst_blk_stride, "dst_blk_stride")):
        handles.append(to_int(value, f"bilinear_interpolation {what}").handle)
    for value, what in ((v_r_offset, "v_r_offset"), (v_repeat, "v_repeat")):
        handles.append(to_int(value, f"bilinear_interpolation {what}").handle)
    handles.append(require_local(shared_tmp_buffer, "bilinear_interpolation", "shared_tmp_buffer").handle)
    current_builder().op("bilinear_interpolation", handles, {"mask_mode": mode})


@builtin
def scatter(dst: Any, src: Any, dst_offset: Any, dst_base: Any, *args: Any, **kwargs: Any) -> None:
    """``AscendC::Scatter``: src[i] goes to the dst element at byte offset ``dst_base + dst_offset[i]``
    (dst_offset: uint32 LocalTensor). ``scatter(..., count)`` or ``scatter(..., mask, repeat_times,
    src_rep_stride)``: repeat r takes 256 bytes of src at ``r * src_rep_stride`` blocks, the elements the mask
    selects, by offsets ``[r * N, (r + 1) * N)``. Atlas A2/A3 lack the instruction, and so do the Model's Ascend
    950 rows: the kernel compiles with a PlatformWarning (as CANN's compiler warns there) and running it is a
    KernelError."""
    handles = [require_local(dst, "scatter", "dst").handle, require_local(src, "scatter", "src").handle]
    handles += [require_local(dst_offset, "scatter", "dst_offset").handle, to_int(dst_base, "dst_base").handle]
    fields = ["count"] if len(args) + len(kwargs) <= 1 else ["mask", "repeat_times", "src_rep_stride"]
    values = dict(zip(fields, args), **kwargs)
    file, line, _ = current_builder().loc
    warnings.warn_explicit(
        "scatter (Ascend C Scatter) is not supported on Atlas A2/A3 nor on the Model's Ascend 950 rows: the kernel "
        "compiles, and running it fails. Write the elements with set_value, or restructure the kernel around gather",
        PlatformWarning,
        file,
        line,
    )
    if set(values) == {"count"}:
        current_builder().op("scatter", [*handles, to_int(values["count"], "scatter count").handle])
        return
    if set(values) != {"mask", "repeat_times", "src_rep_stride"}:
        raise CodegenError("scatter takes count, or mask, repeat_times and src_rep_stride")
    mode, mask0, mask1 = mask_operands(values["mask"], True)
    handles += [mask0.handle, mask1.handle]
    handles += [to_int(values[f], f"scatter {f}").handle for f in ("repeat_times", "src_rep_stride")]
    current_builder().op("scatter.mask", handles, {"mask_mode": mode})
