"""Tile creation: full, full_like, zeros, zeros_like (Duplicate over the
tile) and concat (tiles joined along their first axis), with PyAsc2's
signatures and default dtypes."""

from __future__ import annotations

from typing import Any, Optional

import asc
from asc.codegen import regions
from asc.errors import CodegenError
from asc.language.basic.utils import builtin
from asc.language.core.ir_value import Scalar

from . import ops
from .shape import bits
from .split import SplitTile
from .tile import Tile, check_shape


def _ub_only(location: Any, what: str) -> None:
    """Creation makes Unified Buffer tiles: PyAsc2's default location, the one vector tiles live in."""
    if location is not None and getattr(location, "name", "UB") != "UB":
        raise CodegenError(f"{what}: tiles are created in the Unified Buffer (location UB), got {location!r}")


def _like(t: Any, what: str) -> Tile:
    if not isinstance(t, (Tile, SplitTile)):
        raise CodegenError(f"{what}: expected a tile, got {type(t).__name__}")
    return t


@builtin
def full(shape: Any, value: Any, dtype: Optional[asc.DataType] = None, location: Any = None) -> Any:
    """A tile of `shape` with every element `value`; dtype: `dtype`, else the value's (float32 for a Python
    float, int32 for an int, a run-time value's own)."""
    _ub_only(location, "asc2.full")
    if not isinstance(value, (bool, int, float, Scalar)):  # a bool is the int 0 or 1, as in PyAsc2
        raise CodegenError(f"asc2.full: the value is a number or a run-time scalar, got {type(value).__name__}")
    return ops.full(shape, value, dtype)


@builtin
def full_like(input: Any, value: Any, location: Any = None) -> Any:  # noqa: A002 - PyAsc2's keyword
    """A tile of `input`'s shape and dtype with every element `value`."""
    t = _like(input, "asc2.full_like")
    return full(t.shape, value, t.dtype, location)


@builtin
def zeros(shape: Any, dtype: asc.DataType = asc.int32, location: Any = None) -> Any:
    """A tile of zeros (int32 unless `dtype` says otherwise, as PyAsc2's)."""
    return full(shape, 0, dtype, location)


@builtin
def zeros_like(input: Any, location: Any = None) -> Any:  # noqa: A002 - PyAsc2's keyword
    t = _like(input, "asc2.zeros_like")
    return full(t.shape, 0, t.dtype, location)


@builtin
def concat(*inputs: Any) -> Tile:
    """The tiles joined along their first axis; every other dim, and the dtype, the same in all."""
    if not inputs or not all(isinstance(t, Tile) for t in inputs):
        got = ", ".join(type(t).__name__ for t in inputs) or "nothing"
        raise CodegenError(f"asc2.concat: expected tiles, got {got}")
    first = inputs[0]
    for t in inputs[1:]:
        if t.shape[1:] != first.shape[1:] or len(t.shape) != len(first.shape):
            raise CodegenError(f"asc2.concat: {t!r} and {first!r} differ in a dim other than the first")
        if t.dtype != first.dtype:
            raise CodegenError(f"asc2.concat: dtypes {first.dtype.name} and {t.dtype.name} differ; convert one "
                               "with .to(dtype)")  # fmt: skip
    shape = (sum(t.shape[0] for t in inputs), *first.shape[1:])
    dims = check_shape(shape, first.dtype, "asc2.concat")
    out = Tile(dims, first.dtype)
    dst = bits(out.buf, out.dtype, "asc2.concat")
    if out.size != out.length:  # past the size is computed on too: defined values
        asc.duplicate(dst, ops._scalar(0, dst.dtype, "asc2.concat"), out.length)
    block = 32 // first.dtype.sizeof()
    at = 0
    for t in inputs:
        src = bits(t.buf, t.dtype, "asc2.concat")
        if at % block == 0:  # starts on a 32-byte block: one vector copy
            asc.copy(dst[at:], src, t.size)
        else:  # vector instructions start on blocks: element by element
            with regions.for_range(0, t.size) as i:
                dst.set_value(at + i, src.get_value(i))
        at += t.size
    return out


__all__ = ["concat", "full", "full_like", "zeros", "zeros_like"]
