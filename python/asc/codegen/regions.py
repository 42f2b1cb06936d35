"""Structured control flow and buffers for code that builds kernels: the public way for libraries over
asc (asc2's tile functions, pyasc's kernels) — and for asc's own visitor — to open a loop or an if in the
kernel being compiled, to make a mutable variable, and to take a load's buffer, without driving the
builder's handles. Each is used inside an @asc.jit kernel (while it compiles)::

    with regions.for_range(0, rows) as r:       # for r in range(0, rows)
        ...
    with regions.if_(n > 0) as branch:          # if n > 0: ... else: ...
        ...
        branch.else_()
        ...
    total = regions.variable(first)             # a Scalar that regions.assign(total, value) updates

Double buffering (CodegenOptions.double_buffer, on in @asc2.jit): ``load_buffer`` marks a load's
destination, and the double_buffer pass (src/passes/double_buffer.cpp, before local-memory allocation)
builds each loop holding marked buffers in pairs of iterations, each copy's loads into a buffer of their
own, so consecutive iterations load into different memory."""

from __future__ import annotations

import contextlib
from typing import Any, Iterator, Optional

from ..language.core import dtype as dt
from ..language.core.ir_value import Scalar, to_bool, to_scalar
from .context import current_builder


@contextlib.contextmanager
def for_range(lb: Any, ub: Any, step: Any = 1, dtype: Optional[dt.DataType] = None) -> Iterator[Scalar]:
    """A loop ``for iv in range(lb, ub, step)`` around the statements built in the block, which gets `iv`
    (a run-time Scalar of `dtype`, default int32; int bounds become constants of it, Scalar bounds must
    have it)."""
    dtype = dtype or dt.int32
    builder = current_builder()
    iv = builder.for_begin(*(to_scalar(v, dtype).handle for v in (lb, ub, step)))
    yield Scalar(iv, dtype)
    builder.for_end()


class Branch:
    """The if being built by ``with if_(cond) as branch``; ``branch.else_()`` starts its else part."""

    def __init__(self, builder: Any):
        self._builder, self._in_else = builder, False

    def else_(self) -> None:
        if self._in_else:
            raise RuntimeError("regions.if_: else_() was already called for this if")
        self._in_else = True
        self._builder.else_begin()


@contextlib.contextmanager
def if_(cond: Any) -> Iterator[Branch]:
    """An if on the run-time condition `cond` (a Scalar; nonzero is true) around the statements built in
    the block; ``branch.else_()`` inside it starts the else part."""
    builder = current_builder()
    builder.if_begin(to_bool(cond).handle)
    yield Branch(builder)
    builder.if_end()


@contextlib.contextmanager
def unpaired() -> Iterator[None]:
    """Loads built in the block are not double-buffered (their buffers are not marked): code a library
    repeats on its own inside a loop's body, such as a split tile's chunks."""
    builder = current_builder()
    builder.unpaired += 1
    try:
        yield
    finally:
        builder.unpaired -= 1


def load_buffer(dtype: dt.DataType, length: int) -> Any:
    """A compiler-placed local tensor of `length` elements for a load's destination (a LocalTensorAuto). With
    double buffering on, it is marked: a loop holding it is built in pairs of iterations, and when it is
    directly in that loop's body, copy 0's is one buffer of two halves and copy 1's its second half, so one
    iteration's copy in need not wait for the other's computing."""
    from ..language.core.tensor import LocalTensorAuto

    builder = current_builder()
    return LocalTensorAuto(dtype, length, double_buffer=builder.double_buffer and not builder.unpaired)


def variable(value: Any, dtype: Optional[dt.DataType] = None) -> Scalar:
    """A scalar variable holding `value` now (a Scalar, or a number of `dtype`); ``assign`` updates it, and
    each operation on it reads its value at that point of the kernel. ``variable(v)`` of a variable is a
    copy: its value when the copy is made."""
    init = to_scalar(value, dtype)
    return Scalar(current_builder().op("var", [init.handle]), init.dtype)


def assign(var: Scalar, value: Any) -> None:
    """Stores `value` (converted to the variable's dtype) into a variable made by ``variable``."""
    current_builder().op("assign", [var.handle, to_scalar(value, var.dtype).handle])
