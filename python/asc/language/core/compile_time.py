"""Kernel-language helpers evaluated while compiling: static_assert, number, inline."""

from __future__ import annotations

from typing import Any, Optional

from ...errors import CodegenError
from . import dtype as dt
from .ir_value import Scalar, is_runtime, to_scalar


def static_assert(test: Any, message: Optional[str] = None) -> None:
    """Stops compiling (a CodegenError at the call's line) when the compile-time `test` is false."""
    if is_runtime(test):
        raise CodegenError("static_assert needs a compile-time condition, got a run-time value")
    if not isinstance(test, bool):
        raise CodegenError(f"static_assert needs a bool, got {type(test).__name__}")
    if not test:
        raise CodegenError(f"static_assert failed: {message}" if message is not None else "static_assert failed")


def number(value: Any, dtype: dt.DataType) -> Scalar:
    """`value` as a run-time scalar of `dtype`."""
    if not isinstance(dtype, dt.DataType) or not dtype.is_numeric() or dtype.code >= 100:
        raise CodegenError(f"asc.number: dtype must be an asc integer or float dtype, got {dtype!r}")
    return to_scalar(value, dtype)


def inline(code: str, args: Any = None, before_function: bool = False) -> None:
    """pyasc's verbatim Ascend C: the Model cannot run C++ text, so kernels using it are refused."""
    raise CodegenError(
        "asc.inline inserts Ascend C source verbatim, which the Model cannot run; write the code with asc's APIs"
    )


for _f in (static_assert, number, inline):
    _f.__asc_builtin__ = True  # type: ignore[attr-defined]
