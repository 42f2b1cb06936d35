"""asctile's debugging: static_assert / static_print while compiling, device_print / device_assert while
the kernel runs (asc.printf, asc.dump_tensor and asc.trap; on the Model the text is printed after the
launch, each line prefixed with its block). pyasc-dev drops the device ones unless the kernel is compiled
with debug=True; here they always run."""

from __future__ import annotations

import builtins
from typing import Any, Optional

import asc
from asc.codegen import regions
from asc.errors import CodegenError
from asc.language.basic.utils import builtin
from asc.language.core.ir_value import Scalar, is_runtime, logical_not, to_bool
from asc2.memory import Tensor
from asc2.split import SplitTile
from asc2.tile import Tile


@builtin
def static_assert(test: Any, message: Optional[str] = None) -> None:
    """Fails compilation (a CodegenError naming the line) when the compile-time `test` is false."""
    if is_runtime(test):
        raise CodegenError("asctile.static_assert: the condition must be known while compiling; use "
                           "asctile.device_assert for a run-time one")  # fmt: skip
    if not test:
        raise CodegenError(f"asctile.static_assert failed{': ' + str(message) if message is not None else ''}")


@builtin
def static_print(*values: Any, sep: Optional[str] = None, end: Optional[str] = None, **kwargs: Any) -> None:
    """Python's print, while the kernel compiles (run-time values print as their repr)."""
    builtins.print(*values, sep=sep, end=end, **kwargs)


def _spec(dtype: asc.DataType) -> str:
    if dtype.is_float():
        return "%f"
    return "%u" if dtype.name.startswith("uint") else "%d"


@builtin
def device_print(*values: Any, sep: Optional[str] = None, end: Optional[str] = None) -> None:
    """Prints strings, numbers and run-time scalars with printf, `sep` between them and `end` after; a tile
    or a global tensor is dumped whole (asc.dump_tensor) between lines."""
    sep = " " if sep is None else sep
    end = "\n" if end is None else end
    parts: list[str] = []
    args: list[Any] = []

    def flush() -> None:
        if parts:
            asc.printf("".join(parts) + end.replace("%", "%%"), *args)
            parts.clear()
            args.clear()

    for value in values:
        if isinstance(value, (Tile, Tensor, SplitTile)):
            flush()
            if isinstance(value, SplitTile):
                raise CodegenError(f"asctile.device_print: {value!r} is computed in chunks; print a part of it")
            if isinstance(value, Tile):
                asc.dump_tensor(value.buf, 0, value.size)
            else:
                asc.dump_tensor(value.gm, 0, value.gm.get_size())
            continue
        if parts and sep:
            parts.append(sep.replace("%", "%%"))
        if isinstance(value, Scalar):
            parts.append(_spec(value.dtype))
            args.append(value)
        else:
            parts.append(str(int(value) if isinstance(value, bool) else value).replace("%", "%%"))
    flush()


@builtin
def device_assert(test: Any, message: Optional[str] = None) -> None:
    """Stops the kernel (asc.trap, after printing `message`) when the run-time `test` is false; a
    compile-time one is checked while compiling."""
    if not is_runtime(test):
        if not test:
            raise CodegenError(f"asctile.device_assert failed{': ' + str(message) if message is not None else ''}")
        return
    with regions.if_(logical_not(to_bool(test))):
        asc.printf(f"device_assert failed: {message if message is not None else 'assertion'}\n".replace("%", "%%"))
        asc.trap()


__all__ = ["device_assert", "device_print", "static_assert", "static_print"]
