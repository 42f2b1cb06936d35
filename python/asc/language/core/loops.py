"""asc.range and asc.static_range: the loops of pyasc kernels.

``for i in asc.range(...)`` is a run-time loop, as ``range(...)``; ``for i in
asc.static_range(...)`` is unrolled while compiling: its bounds must be compile-time
integers and the body is built once per value, with `i` a Python int. The code
generator (asc.codegen.function_visitor) recognises both in a `for` statement."""

from __future__ import annotations

from typing import Any

from ...errors import CodegenError


class _Loop:
    __asc_builtin__ = True

    def __init__(self, *args: Any, **hints: Any) -> None:
        if not 1 <= len(args) <= 3:
            raise CodegenError(f"{type(self).__name__} takes 1 to 3 arguments, got {len(args)}")
        self.args, self.hints = args, hints

    def __iter__(self):
        raise CodegenError(f"asc.{type(self).__name__} is the iterable of a kernel's for statement only")


class range(_Loop):  # noqa: A001 - pyasc's name
    """A run-time loop: ``for i in asc.range(start, stop, step)``."""


class static_range(_Loop):
    """A loop unrolled while compiling: ``for i in asc.static_range(start, stop, step)``."""
