"""cast: element type conversion with the Ascend C round modes."""

from __future__ import annotations

from typing import Any

from ...codegen.context import current_builder
from ...errors import CodegenError
from ..core.enums import RoundMode
from ..core.ir_value import to_int
from ..core.repeat_params import UnaryRepeatParams
from .utils import builtin, require_local
from .vector import mask_form_operands


@builtin
def cast(dst: Any, src: Any, round_mode: RoundMode, *args: Any, **kwargs: Any) -> None:
    """dst = src converted to dst's dtype with `round_mode` (pipe V): ``cast(dst, src, round_mode, count)``
    or ``cast(dst, src, round_mode, mask, repeat_times, repeat_params, is_set_mask=True)`` with
    UnaryRepeatParams, where a repeat holds 256 bytes of the wider of the two dtypes.

    The (src, dst) pairs and the modes each accepts follow Atlas A2; integer
    results saturate. See docs/basic-api.md.
    """
    if not isinstance(round_mode, RoundMode):
        raise CodegenError(f"cast: round_mode must be an asc.RoundMode, got {round_mode!r}")
    d, s = require_local(dst, "cast", "dst"), require_local(src, "cast", "src")
    builder = current_builder()
    if len(args) + len(kwargs) == 1 and (args or "count" in kwargs):
        n = to_int(args[0] if args else kwargs["count"], "cast count")
        builder.op("cast", [d.handle, s.handle, n.handle], {"round_mode": int(round_mode)})
        return
    mode, handles = mask_form_operands("cast", args, kwargs, UnaryRepeatParams)
    builder.op("cast.mask", [d.handle, s.handle, *handles], {"mask_mode": mode, "round_mode": int(round_mode)})
