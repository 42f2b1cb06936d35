"""cast: element type conversion with the Ascend C round modes (count mode)."""

from __future__ import annotations

from typing import Any

from ...codegen.context import current_builder
from ...errors import CodegenError
from ..core.enums import RoundMode
from ..core.ir_value import to_int
from .utils import builtin, require_local


@builtin
def cast(dst: Any, src: Any, round_mode: RoundMode, count: Any = None, **params: Any) -> None:
    """dst[i] = src[i] converted to dst's dtype with `round_mode`, for i < count (pipe V).

    The (src, dst) pairs and the modes each accepts follow Atlas A2; integer
    results saturate. See docs/basic-api.md.
    """
    if params or count is None:
        raise CodegenError("cast(dst, src, round_mode, count) is supported; the mask/repeat form is not yet")
    if not isinstance(round_mode, RoundMode):
        raise CodegenError(f"cast: round_mode must be an asc.RoundMode, got {round_mode!r}")
    d, s = require_local(dst, "cast", "dst"), require_local(src, "cast", "src")
    n = to_int(count, "cast count")
    current_builder().op("cast", [d.handle, s.handle, n.handle], {"round_mode": int(round_mode)})
