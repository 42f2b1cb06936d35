"""data_copy: GM <-> Unified Buffer and UB -> UB copies (count mode)."""

from __future__ import annotations

from typing import Any

from ...codegen.context import current_builder
from ...errors import CodegenError
from ..core.data_copy_params import DataCopyParams
from ..core.ir_value import to_int
from .utils import builtin, require_tensor


@builtin
def data_copy(dst: Any, src: Any, count: Any = None, repeat_params: Any = None, **params: Any) -> None:
    """Copies from `src` to `dst` (GM->UB on MTE2, UB->GM on MTE3, UB->UB on V).

    ``data_copy(dst, src, count)``: `count` elements; ``count * sizeof(dtype)``
    must be a multiple of 32 bytes, as on the NPU.
    ``data_copy(dst, src, asc.DataCopyParams(block_count, block_len, src_stride, dst_stride))``:
    rows of 32-byte blocks with gaps between them.
    """
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
