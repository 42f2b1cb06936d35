"""Vector binary instructions, count mode: dst[i] = op(src0[i], src1[i]) for i < count."""

from __future__ import annotations

from typing import Any

from ...codegen.context import current_builder
from ...errors import CodegenError
from ..core.ir_value import to_int
from .utils import builtin, require_local


def _binary(name: str, dst: Any, src0: Any, src1: Any, count: Any, params: dict) -> None:
    if params or count is None:
        raise CodegenError(f"{name}(dst, src0, src1, count) is supported; the mask/repeat forms are not yet")
    operands = [require_local(t, name, role).handle for t, role in ((dst, "dst"), (src0, "src0"), (src1, "src1"))]
    operands.append(to_int(count, f"{name} count").handle)
    current_builder().op(name, operands)


@builtin
def add(dst: Any, src0: Any, src1: Any, count: Any = None, **params: Any) -> None:
    """dst = src0 + src1 (half, float, int16, int32)."""
    _binary("add", dst, src0, src1, count, params)


@builtin
def sub(dst: Any, src0: Any, src1: Any, count: Any = None, **params: Any) -> None:
    """dst = src0 - src1 (half, float, int16, int32)."""
    _binary("sub", dst, src0, src1, count, params)


@builtin
def mul(dst: Any, src0: Any, src1: Any, count: Any = None, **params: Any) -> None:
    """dst = src0 * src1 (half, float, int16, int32)."""
    _binary("mul", dst, src0, src1, count, params)


@builtin
def div(dst: Any, src0: Any, src1: Any, count: Any = None, **params: Any) -> None:
    """dst = src0 / src1 (half, float)."""
    _binary("div", dst, src0, src1, count, params)


@builtin
def max(dst: Any, src0: Any, src1: Any, count: Any = None, **params: Any) -> None:  # noqa: A001
    """dst = max(src0, src1) (half, float, int16, int32)."""
    _binary("max", dst, src0, src1, count, params)


@builtin
def min(dst: Any, src0: Any, src1: Any, count: Any = None, **params: Any) -> None:  # noqa: A001
    """dst = min(src0, src1) (half, float, int16, int32)."""
    _binary("min", dst, src0, src1, count, params)
