"""What the operator API raises and warns, each naming the operator's file and line."""

from __future__ import annotations

from asc.errors import CodegenError


class OperatorError(CodegenError):
    """An operator body that cannot be compiled for these arguments (unsupported statement, shape, dtype)."""


class SlowLoopWarning(UserWarning):
    """A loop nest compiled to scalar code: correct, but one element at a time."""


class NotRecognised(Exception):
    """A loop nest that is not a contraction or a window reduction (the message says which rule failed);
    it compiles to scalar code instead."""
