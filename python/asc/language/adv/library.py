"""How an adv library function is built: its expansion over the basic API between the IR markers adv.call and
adv.call_end, so that the Model runs, checks and prices the real instruction sequence (every access to the
temporary buffer included) while the Ascend C emitter writes the library call itself (``AscendC::Sin(...)``) for
the board. Every op of the expansion carries the user's line: an error in it (a temporary buffer too small, a
shape the function does not support) names the call, not this library.

Each function of the library is one definition: its Ascend C spelling and its expansion side by side, in the
module of its family (math.py, activation.py, ...)."""

from __future__ import annotations

from contextlib import contextmanager
from typing import Any, Callable, Iterator, Optional, Sequence

from ...codegen.context import current_builder
from ...errors import CodegenError
from ..basic.utils import builtin
from ..core import dtype as dt
from ..core.enums import TPosition
from ..core.ir_value import Scalar, const, to_int
from ..core.tensor import LocalTensor


@contextmanager
def users_line() -> Iterator[None]:
    """Ops built inside keep the location of the statement being compiled (the user's call of the adv
    function), also inside @jit device functions the expansion calls."""
    builder = current_builder()
    builder.loc_pinned = getattr(builder, "loc_pinned", 0) + 1
    try:
        yield
    finally:
        builder.loc_pinned -= 1


def _handle(value: Any) -> int:
    if isinstance(value, bool):
        return const(int(value), dt.bool_).handle
    if isinstance(value, int):
        return const(value, dt.int32).handle
    if isinstance(value, float):
        return const(value, dt.float32).handle
    return value.handle


def library_call(call: str, operands: Sequence[Any], expansion: Callable[[], Any]) -> Any:
    """Marks Ascend C's library call `call` (an ``AscendC::`` statement without its `;`: ``{N}`` is operand N,
    ``{T:N}`` its dtype's C type, ``{{``/``}}`` braces) and builds `expansion`, what computes it on the Model."""
    builder = current_builder()
    builder.op("adv.call", [_handle(v) for v in operands], {"call": call})
    with users_line():
        result = expansion()
    builder.op("adv.call_end", [])
    return result


def inline(fn: Any, *args: Any) -> Any:
    """Builds the @jit device function `fn` here, with `args` (compile-time objects and IR values alike)."""
    builder = current_builder()
    return fn.inline(builder, list(args), {}, builder.loc)


@builtin
def require(condition: Scalar, message: str) -> None:
    """A precondition checked when the kernel runs: false stops the launch with `message` at the user's line."""
    current_builder().op("adv.require", [condition.handle], {"message": message})


def stack_buffer() -> LocalTensor:
    """The framework's temporary buffer (Ascend C PopStackBuffer): the Unified Buffer from the first byte no
    TPipe or static allocation has handed out to its end, as uint8 at VECCALC."""
    handle = current_builder().op("stack_buffer", [])
    return LocalTensor._wrap(handle, dt.uint8, TPosition.VECCALC)


def temp_buffer_of(temp_buffer: Optional[Any], api: str) -> LocalTensor:
    """The caller's temporary buffer (a uint8 LocalTensor in the Unified Buffer), or the framework's."""
    if temp_buffer is None:
        return stack_buffer()
    if not isinstance(temp_buffer, LocalTensor):
        raise CodegenError(f"{api}: temp_buffer must be a LocalTensor, got {type(temp_buffer).__name__}")
    if temp_buffer.dtype != dt.uint8:
        raise CodegenError(f"{api}: temp_buffer must be a uint8 LocalTensor, got {temp_buffer.dtype.name}")
    if temp_buffer.position not in (TPosition.VECIN, TPosition.VECOUT, TPosition.VECCALC):
        raise CodegenError(f"{api}: temp_buffer must be in the Unified Buffer (VECIN, VECOUT or VECCALC)")
    return temp_buffer


def count_of(count: Optional[Any], src: LocalTensor, api: str) -> Scalar:
    """calCount, or (when None) the whole of src, as Ascend C's forms without calCount compute."""
    if count is None:
        return src.get_size()
    return to_int(count, f"{api} count")


def call_operands(fixed: Sequence[Any], temp_buffer: Optional[Any] = None,
                  count: Optional[Any] = None) -> tuple[list, str]:  # fmt: skip
    """An adv call's operands and their placeholders, as Ascend C's overloads take them: `fixed`, then the
    caller's temporary buffer when given (the forms without one use the framework's), then the count when given
    (the forms without one take the whole of src)."""
    operands = [*fixed, *(v for v in (temp_buffer, count) if v is not None)]
    return operands, ", ".join(f"{{{i}}}" for i in range(len(operands)))


def shape_rows_cols(tensor: LocalTensor) -> tuple[Any, Any]:
    """A tensor's set_shape_info as (rows, row length): the product of the leading axes and the last one; (0, 0)
    when it has none."""
    dims = list(tensor.get_shape_info().shape)
    if not dims:
        return 0, 0
    rows: Any = 1
    for d in dims[:-1]:
        rows = rows * d
    return rows, dims[-1]
