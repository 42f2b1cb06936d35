"""data_copy: GM <-> Unified Buffer and UB -> UB copies (count mode)."""

from __future__ import annotations

from typing import Any

from ...codegen.context import current_builder
from ...errors import CodegenError
from ..core.cube_params import DataCopyCO12DstParams, Nd2NzParams, Nz2NdParamsFull
from ..core.data_copy_params import DataCopyExtParams, DataCopyPadExtParams, DataCopyParams
from ..core.ir_value import cast, is_runtime, to_int, to_scalar
from ..core.param_structs import DataCopyPadParams
from ..core.tensor import LocalTensor
from .utils import builtin, require_tensor


@builtin
def data_copy(dst: Any, src: Any, count: Any = None, repeat_params: Any = None, **params: Any) -> None:
    """Copies from `src` to `dst` (GM->UB on MTE2, UB->GM on MTE3, UB->UB on V).

    ``data_copy(dst, src, count)``: `count` elements; ``count * sizeof(dtype)``
    must be a multiple of 32 bytes, as on the NPU.
    ``data_copy(dst, src, asc.DataCopyParams(block_count, block_len, src_stride, dst_stride))``:
    rows of 32-byte blocks with gaps between them.
    """
    layout = count if isinstance(count, (Nd2NzParams, Nz2NdParamsFull)) else params.get("intri_params")
    if isinstance(layout, (Nd2NzParams, Nz2NdParamsFull)):  # ND -> Nz into L1, or Nz -> ND out of the UB
        params.pop("intri_params", None)
        require_tensor(dst, "data_copy", "dst")
        require_tensor(src, "data_copy", "src")
        fields = [to_int(v, type(layout).__name__).handle for v in layout.fields()]
        name = "data_copy.nd2nz" if isinstance(layout, Nd2NzParams) else "data_copy.nz2nd"
        current_builder().op(name, [dst.handle, src.handle, *fields])
        return
    if isinstance(count, DataCopyCO12DstParams):  # L0C -> GM through the fixpipe
        require_tensor(dst, "data_copy", "dst")
        fields = [to_int(v, "DataCopyCO12DstParams").handle for v in count.fields()]
        nz2nd = int(count.nz2nd_en) if isinstance(count.nz2nd_en, bool) else 1
        current_builder().op("fixpipe", [dst.handle, src.handle, *fields], {"nz2nd": nz2nd, "deq_register": 1})
        return
    if isinstance(count, DataCopyParams):
        count, repeat_params = None, count
    repeat_params = repeat_params or params.pop("params", None)
    if params or (count is None) == (repeat_params is None):
        raise CodegenError("data_copy takes (dst, src, count) or (dst, src, DataCopyParams); the Nd2Nz/Nz2Nd and "
                           "enhanced-params forms are not supported yet")  # fmt: skip
    require_tensor(dst, "data_copy", "dst")
    require_tensor(src, "data_copy", "src")
    if repeat_params is None:
        current_builder().op("data_copy", [dst.handle, src.handle, to_int(count, "data_copy count").handle])
        return
    if not isinstance(repeat_params, DataCopyParams):
        raise CodegenError(f"data_copy: expected asc.DataCopyParams, got {type(repeat_params).__name__}")
    p = repeat_params
    fields = [p.block_count, p.block_len, p.src_stride, p.dst_stride]
    names = ("block_count", "block_len", "src_stride", "dst_stride")
    operands = [to_int(v, f"DataCopyParams.{n}").handle for v, n in zip(fields, names)]
    current_builder().op("data_copy", [dst.handle, src.handle, *operands])


@builtin
def data_copy_pad(dst: Any, src: Any, data_copy_params: Any, pad_params: Any = None) -> None:
    """Copies rows of any byte length between GM and the Unified Buffer (GM->UB on MTE2, UB->GM on MTE3).

    In the Unified Buffer each row starts on a 32-byte block and is padded to a
    whole number of blocks; `pad_params` (GM->UB only) fills the pads."""
    # Ascend C's DataCopyPad takes DataCopyParams / DataCopyPadParams too: the same fields, narrower integers
    if not isinstance(data_copy_params, (DataCopyExtParams, DataCopyParams)):
        got = type(data_copy_params).__name__
        raise CodegenError(f"data_copy_pad: expected asc.DataCopyExtParams or asc.DataCopyParams, got {got}")
    require_tensor(dst, "data_copy_pad", "dst")
    require_tensor(src, "data_copy_pad", "src")
    p = data_copy_params
    names = ("block_count", "block_len", "src_stride", "dst_stride")
    operands = [to_int(getattr(p, n), f"{type(p).__name__}.{n}").handle for n in names]
    if isinstance(dst, LocalTensor):
        pad = pad_params or DataCopyPadExtParams()
        if not isinstance(pad, (DataCopyPadExtParams, DataCopyPadParams)):
            raise CodegenError(
                f"data_copy_pad: expected asc.DataCopyPadExtParams or asc.DataCopyPadParams, got {type(pad).__name__}"
            )
        fill = pad.padding_value
        value = cast(fill, dst.dtype) if is_runtime(fill) else to_scalar(fill, dst.dtype)
        is_pad = pad.is_pad if is_runtime(pad.is_pad) else int(bool(pad.is_pad))
        operands += [to_int(pad.left_padding, "left_padding").handle, to_int(pad.right_padding, "right_padding").handle]
        operands += [value.handle, to_int(is_pad, "is_pad").handle]
        current_builder().op("data_copy_pad.gm_to_local", [dst.handle, src.handle, *operands])
    else:
        if pad_params is not None:
            raise CodegenError("data_copy_pad: padding applies to GM -> Unified Buffer copies only")
        current_builder().op("data_copy_pad.local_to_gm", [dst.handle, src.handle, *operands])
