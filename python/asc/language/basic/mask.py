"""The vector mask register: set_vector_mask, set_mask_count / set_mask_norm,
reset_mask. Mask-mode instructions called with ``is_set_mask=False`` run with
the register; in counter mode it holds an element count and the instruction
ignores its repeat_times.
"""

from __future__ import annotations

from typing import Any

from ...codegen.context import current_builder
from ...errors import CodegenError
from ..core import dtype as dt
from ..core.enums import MaskMode
from ..core.ir_value import cast, to_int, to_scalar
from .utils import builtin

MASK_PLACEHOLDER = 0
"""The `mask` argument of an instruction called with is_set_mask=False."""


@builtin
def set_vector_mask(*args: Any, dtype: Any, mode: Any = MaskMode.NORMAL) -> None:
    """``set_vector_mask(length, dtype=, mode=)`` or ``set_vector_mask(mask_high, mask_low, dtype=, mode=)``.
    NORMAL mode: the first `length` elements of each repeat, or the 128 mask bits; COUNTER mode: `length`
    (or `mask_low`) is the element count of the instructions that follow."""
    if not isinstance(dtype, dt.DataType):
        raise CodegenError(f"set_vector_mask: dtype must be an asc dtype such as asc.float16, got {dtype!r}")
    if mode not in (MaskMode.NORMAL, MaskMode.COUNTER):
        raise CodegenError(f"set_vector_mask: mode must be asc.MaskMode.NORMAL or COUNTER, got {mode!r}")
    if len(args) == 1:
        lo, hi, form = args[0], 0, 0
    elif len(args) == 2:
        hi, lo, form = args[0], args[1], 1
    else:
        raise CodegenError("set_vector_mask takes (length) or (mask_high, mask_low), then dtype= and mode=")
    words = []
    for word in (lo, hi):
        if isinstance(word, int) and not isinstance(word, bool):
            if not -(2**63) <= word < 2**64:
                raise CodegenError(f"set_vector_mask: {word} does not fit in 64 bits")
            words.append(to_scalar(word - 2**64 if word >= 2**63 else word, dt.int64))
        else:
            words.append(cast(to_int(word, "set_vector_mask"), dt.int64))
    attrs = {"mask_mode": form, "dtype": dtype.code, "counter": int(mode == MaskMode.COUNTER)}
    current_builder().op("set_vector_mask", [words[0].handle, words[1].handle], attrs)


@builtin
def set_mask_count() -> None:
    """Counter mode: the mask register holds an element count (set it with set_vector_mask)."""
    current_builder().op("set_mask_count", [])


@builtin
def set_mask_norm() -> None:
    """Normal mode (the default): the mask register selects elements of each repeat."""
    current_builder().op("set_mask_norm", [])


@builtin
def reset_mask() -> None:
    """Every element of each repeat selected."""
    current_builder().op("reset_mask", [])
