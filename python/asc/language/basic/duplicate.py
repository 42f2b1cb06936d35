"""duplicate: fill a tensor with one scalar (count mode)."""

from __future__ import annotations

from typing import Any

from ...codegen.context import current_builder
from ...errors import CodegenError
from ..core.ir_value import Scalar, cast, to_int, to_scalar
from .utils import builtin, require_local


@builtin
def duplicate(dst: Any, scalar: Any, count: Any = None, **params: Any) -> None:
    """dst[i] = scalar for i < count, on pipe V (half, float, int16/uint16, int32/uint32)."""
    if params or count is None:
        raise CodegenError("duplicate(dst, scalar, count) is supported; the mask/repeat forms are not yet")
    t = require_local(dst, "duplicate", "dst")
    value = cast(scalar, t.dtype) if isinstance(scalar, Scalar) else to_scalar(scalar, t.dtype)
    current_builder().op("duplicate", [t.handle, value.handle, to_int(count, "duplicate count").handle])
