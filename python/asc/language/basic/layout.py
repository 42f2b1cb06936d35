"""Layout instructions on pipe V: transpose."""

from __future__ import annotations

from typing import Any

from ...codegen.context import current_builder
from ...errors import CodegenError
from ..core.ir_value import to_int
from ..core.layout_params import TransposeParamsExt
from .utils import builtin, require_local


@builtin
def transpose(dst: Any, src: Any, *args: Any, **kwargs: Any) -> None:
    """``transpose(dst, src)``: one 16x16 matrix of 2-byte elements, dst = src.T.
    ``transpose(dst, src, shared_tmp_buffer, params)``: TransposeParamsExt with TRANSPOSE_NCHW2NHWC,
    TRANSPOSE_NHWC2NCHW or TRANSPOSE_ND2ND_B16; shared_tmp_buffer is a uint8 LocalTensor."""
    d, s = require_local(dst, "transpose", "dst"), require_local(src, "transpose", "src")
    builder = current_builder()
    if not args and not kwargs:
        builder.op("transpose", [d.handle, s.handle])
        return
    values = dict(zip(["shared_tmp_buffer", "params"], args), **kwargs)
    if set(values) != {"shared_tmp_buffer", "params"}:
        raise CodegenError("transpose takes (dst, src) or (dst, src, shared_tmp_buffer, params)")
    tmp = require_local(values["shared_tmp_buffer"], "transpose", "shared_tmp_buffer")
    params = values["params"]
    if not isinstance(params, TransposeParamsExt):
        raise CodegenError(f"transpose: params must be an asc.TransposeParamsExt, got {type(params).__name__}")
    if not isinstance(params.transpose_type, int):
        raise CodegenError("transpose: transpose_type must be a compile-time asc.TransposeType")
    fields = ("n_size", "c_size", "h_size", "w_size")
    sizes = [to_int(getattr(params, f), f"transpose {f}").handle for f in fields]
    builder.op(
        "transpose.ext", [d.handle, s.handle, tmp.handle, *sizes], {"transpose_type": int(params.transpose_type)}
    )
