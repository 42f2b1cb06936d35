"""data_copy: GM <-> Unified Buffer and UB -> UB copies (count mode)."""

from __future__ import annotations

from typing import Any

from ...codegen.context import current_builder
from ...errors import CodegenError
from ..core.ir_value import to_int
from .utils import builtin, require_tensor


@builtin
def data_copy(dst: Any, src: Any, count: Any = None, **params: Any) -> None:
    """Copies `count` elements from `src` to `dst` (GM->UB on MTE2, UB->GM on MTE3, UB->UB on V).

    ``count * sizeof(dtype)`` must be a multiple of 32 bytes, as on the NPU.
    """
    if params or count is None:
        raise CodegenError(
            "data_copy(dst, src, count) is supported; the DataCopyParams / repeat_params forms are not yet"
        )
    require_tensor(dst, "data_copy", "dst")
    require_tensor(src, "data_copy", "src")
    n = to_int(count, "data_copy count")
    current_builder().op("data_copy", [dst.handle, src.handle, n.handle])
