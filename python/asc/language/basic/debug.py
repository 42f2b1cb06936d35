"""Debugging from inside a kernel: asc.printf and asc.dump_tensor. On the Model
the text is printed after the launch (also a failed one), in block order, each
line prefixed with ``[Block i/n]``."""

from __future__ import annotations

import re
from typing import Any, Optional

from ...codegen.context import current_builder
from ...errors import CodegenError
from ..core import dtype as dt
from ..core.ir_value import Scalar, to_int, to_scalar
from ..core.shape_info import ShapeInfo
from ..core.tensor import GlobalTensor, LocalTensor
from .utils import builtin

_CONVERSION = re.compile(r"%(%|[-+ #0]*\d*(?:\.\d+)?(?:hh|h|ll|l)?[a-zA-Z])")
MAX_VALUES = 12


def _value(param: Any, spec: str) -> Scalar:
    if isinstance(param, Scalar):
        return param
    if isinstance(param, bool) or not isinstance(param, (int, float)):
        raise CodegenError(f"printf: {spec} needs a number, got {type(param).__name__}")
    return to_scalar(param, dt.int32 if isinstance(param, int) else dt.float32)  # as pyasc: int32 / float32


@builtin
def printf(desc: str, *params: Any) -> None:
    """C-style printf from the scalar unit: ``asc.printf("x[%d] = %f\\n", i, v)``. Conversions: %d %i %u
    %x %X %o %c (integers), %f %F %e %E %g %G (floats), %% and %s (a Python string, substituted now)."""
    if not isinstance(desc, str):
        raise CodegenError(f"printf: the format must be a Python string, got {type(desc).__name__}")
    desc = desc.replace("\\n", "\n")  # Ascend C's printf wants "\\n" in Python source; a real newline works too
    out, values, rest = [], [], list(params)
    pos = 0
    for m in _CONVERSION.finditer(desc):
        out.append(desc[pos : m.start()])
        pos = m.end()
        spec = m.group(0)
        if spec == "%%":
            out.append(spec)
            continue
        if not rest:
            raise CodegenError(f"printf: the format has more conversions than the {len(params)} values given")
        param = rest.pop(0)
        if spec.endswith("s"):
            if not isinstance(param, str):
                raise CodegenError(f"printf: %s takes a Python string, got {type(param).__name__}")
            out.append(param.replace("%", "%%"))
            continue
        out.append(spec)
        values.append(_value(param, spec))
    out.append(desc[pos:])
    if rest:
        raise CodegenError(f"printf: {len(rest)} values more than the format's conversions")
    if len(values) > MAX_VALUES:
        raise CodegenError(f"printf: at most {MAX_VALUES} run-time values per call, got {len(values)}")
    current_builder().op("printf", [v.handle for v in values], {"format": "".join(out)})
    current_builder().prints = True


@builtin
def dump_tensor(tensor: Any, desc: Any, dump_size: Any, shape_info: Optional[ShapeInfo] = None) -> None:
    """Prints ``DumpTensor: desc=.., addr=.., data_type=.., position=.., dump_size=N`` and the first
    `dump_size` elements of a LocalTensor or GlobalTensor (laid out by `shape_info`, if given)."""
    if isinstance(tensor, GlobalTensor):
        handle = tensor._require()
    elif isinstance(tensor, LocalTensor):
        handle = tensor.handle
    else:
        raise CodegenError(
            f"dump_tensor: the tensor must be a LocalTensor or GlobalTensor, got {type(tensor).__name__}"
        )
    if shape_info is not None and not isinstance(shape_info, ShapeInfo):
        raise CodegenError(f"dump_tensor: shape_info must be an asc.ShapeInfo, got {type(shape_info).__name__}")
    dims = [] if shape_info is None else shape_info.shape
    operands = [handle, to_int(desc, "dump_tensor desc").handle, to_int(dump_size, "dump_size").handle]
    operands += [to_int(d, "a ShapeInfo dimension").handle for d in dims]
    current_builder().op("dump_tensor", operands)
    current_builder().prints = True
