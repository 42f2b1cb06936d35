"""The kernel being compiled on this thread, and its current source location."""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

from ..errors import CodegenError

if TYPE_CHECKING:
    from .ir_builder import IRBuilder

_state = threading.local()


def current_builder() -> IRBuilder:
    builder = getattr(_state, "builder", None)
    if builder is None:
        raise CodegenError("this asc function can only be called inside an @asc.jit kernel")
    return builder


def in_kernel() -> bool:
    return getattr(_state, "builder", None) is not None


class compiling:
    """Context manager that makes `builder` current while a kernel is compiled."""

    def __init__(self, builder: IRBuilder):
        self.builder = builder

    def __enter__(self) -> IRBuilder:
        self.previous = getattr(_state, "builder", None)
        _state.builder = self.builder
        return self.builder

    def __exit__(self, *exc) -> None:
        _state.builder = self.previous
