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

Double buffering (CodegenOptions.double_buffer, on in @asc2.jit): a loop built in pairs of iterations
(``paired_copies``) builds its body twice per pair; ``load_buffer`` gives each copy's k-th load one half of
one buffer, so consecutive iterations load into different memory."""

from __future__ import annotations

import contextlib
from typing import Any, Iterator, Optional

from ..language.core import dtype as dt
from ..language.core.ir_value import Scalar, to_bool, to_scalar
from .context import current_builder


@contextlib.contextmanager
def _nested(builder: Any) -> Iterator[None]:
    """The body of a loop or if: none of it is a copy of a paired loop's body (its loads have buffers of
    their own; see load_buffer)."""
    outer, builder.unrolled = builder.unrolled, None
    try:
        yield
    finally:
        builder.unrolled = outer


@contextlib.contextmanager
def for_range(lb: Any, ub: Any, step: Any = 1, dtype: Optional[dt.DataType] = None) -> Iterator[Scalar]:
    """A loop ``for iv in range(lb, ub, step)`` around the statements built in the block, which gets `iv`
    (a run-time Scalar of `dtype`, default int32; int bounds become constants of it, Scalar bounds must
    have it)."""
    dtype = dtype or dt.int32
    builder = current_builder()
    iv = builder.for_begin(*(to_scalar(v, dtype).handle for v in (lb, ub, step)))
    with _nested(builder):
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
    with _nested(builder):
        yield Branch(builder)
    builder.if_end()


@contextlib.contextmanager
def unpaired() -> Iterator[None]:
    """Statements that are no copy of a paired loop's body, though built in one (their loads take buffers
    of their own): code a library repeats inside the body, such as a split tile's chunks."""
    with _nested(current_builder()):
        yield


@contextlib.contextmanager
def paired_copy(loop: object, copy: int) -> Iterator[None]:
    """The statements built in the block are copy `copy` (0 or 1) of the body of the paired loop `loop`
    (any object, one per loop): their loads share buffers with the other copy's (load_buffer)."""
    builder = current_builder()
    outer, builder.unrolled = builder.unrolled, (loop, copy)
    try:
        yield
    finally:
        builder.unrolled = outer


def load_buffer(dtype: dt.DataType, length: int) -> Any:
    """A compiler-placed local tensor of `length` elements for a load's destination (a LocalTensorAuto).
    In a paired loop's body, copy 0's k-th load makes one buffer of two halves and takes the first, copy
    1's k-th load takes the second, so one iteration's copy in need not wait for the other's computing."""
    from ..language.core.tensor import LocalTensorAuto

    builder = current_builder()
    state = builder.unrolled
    if state is None:
        return LocalTensorAuto(dtype, length)
    loop, copy = state
    index = builder.buffer_uses.get(state, 0)
    builder.buffer_uses[state] = index + 1
    pairs = builder.double_buffers.setdefault(loop, [])
    if copy == 0:
        first = LocalTensorAuto(dtype, 2 * length)
        pairs.append((length, dtype, first))
        return first
    if index < len(pairs) and pairs[index][:2] == (length, dtype):
        return pairs[index][2][length:]
    return LocalTensorAuto(dtype, length)  # the copies loaded differently: a buffer of its own


def variable(value: Any, dtype: Optional[dt.DataType] = None) -> Scalar:
    """A scalar variable holding `value` now (a Scalar, or a number of `dtype`); ``assign`` updates it, and
    each operation on it reads its value at that point of the kernel. ``variable(v)`` of a variable is a
    copy: its value when the copy is made."""
    init = to_scalar(value, dtype)
    return Scalar(current_builder().op("var", [init.handle]), init.dtype)


def assign(var: Scalar, value: Any) -> None:
    """Stores `value` (converted to the variable's dtype) into a variable made by ``variable``."""
    current_builder().op("assign", [var.handle, to_scalar(value, var.dtype).handle])
