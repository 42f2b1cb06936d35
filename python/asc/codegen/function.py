"""What the code generator needs from a Python function that kernels call: its source, its signature, and
a way to compile a call to it into the kernel being built. ``asc.runtime.jit.JITFunction`` (the object
``@asc.jit`` makes) is a Function that can also be launched; the visitor knows only this class, so the code
generator never imports the runtime (as pyasc's ``JITFunction(Function)`` and its visitor's
``isinstance(fn, Function)``)."""

from __future__ import annotations

import inspect
import threading
from typing import TYPE_CHECKING, Any, Callable, Optional

from ..errors import CodegenError
from .source import FunctionSource

if TYPE_CHECKING:
    from .ir_builder import IRBuilder


MAX_RECURSION = 16  # how deep a device function may call itself (inlined: the recursion ends at compile time)
_inlining = threading.local()  # .stack: the device functions being inlined on this thread, outermost first


class Function:
    """A Python function compiled into kernels: a device function called from a kernel is inlined there."""

    def __init__(self, fn: Callable[..., Any]):
        if not callable(fn):
            raise TypeError(f"{type(fn).__name__} instance is not callable")
        self.fn = fn
        self.signature = inspect.signature(fn)
        self.__name__ = fn.__name__
        self.__doc__ = fn.__doc__
        self._source: Optional[FunctionSource] = None

    @property
    def source(self) -> FunctionSource:
        """The function's parsed source (parsed on first use)."""
        if self._source is None:
            self._source = FunctionSource(self.fn)
        return self._source

    def bind_call(self, args: list, kwargs: dict, call_loc: tuple[str, int, int]) -> dict[str, Any]:
        """The parameters' values for a call with these arguments (defaults applied); a mismatch is a
        CodegenError at the call."""
        try:
            bound = self.signature.bind(*args, **kwargs)
        except TypeError as e:
            raise CodegenError(f"{self.__name__}(): {e}", *call_loc) from None
        bound.apply_defaults()
        return dict(bound.arguments)

    def inline(self, builder: IRBuilder, args: list, kwargs: dict, call_loc: tuple[str, int, int]) -> Any:
        """Compiles a call to this function into the kernel `builder` is building; returns its value."""
        from .function_visitor import FunctionVisitor  # the visitor imports this module

        scope = self.bind_call(args, kwargs, call_loc)
        stack = getattr(_inlining, "stack", None)
        if stack is None:
            stack = _inlining.stack = []
        if sum(1 for f in stack if f is self) >= MAX_RECURSION:
            raise CodegenError(
                f"device function '{self.__name__}' (defined at {self.source.file}:{self.source.line}) calls itself "
                f"more than {MAX_RECURSION} deep: device functions are inlined into the kernel, so a recursion must "
                "end at compile time (on a ConstExpr or Python value) within that many calls",
                *call_loc,
            )
        stack.append(self)
        try:
            return FunctionVisitor(builder, self.source, scope).run_body()
        except RecursionError:
            raise CodegenError(
                f"device function '{self.__name__}' (defined at {self.source.file}:{self.source.line}): calls "
                "nest deeper than Python's recursion limit allows to compile them",
                *call_loc,
            ) from None
        finally:
            stack.pop()
