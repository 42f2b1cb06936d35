"""Debugging from inside a kernel: asc.printf, asc.dump_tensor, asc.dump_acc_chk_point and asc.print_time_stamp,
and msProf's range markers asc.metrics_prof_start / asc.metrics_prof_stop. On the Model the text is printed after
the launch (also a failed one), in block order, each line prefixed with ``[Block i/n]``."""

from __future__ import annotations

import re
from typing import Any, Optional

from ...codegen.context import current_builder
from ...errors import CodegenError
from ..core import dtype as dt
from ..core.ir_value import Scalar, to_int, to_scalar
from ..core.shape_info import ShapeInfo
from ..core.tensor import GlobalAddress, GlobalTensor, LocalTensor
from .utils import builtin

_CONVERSION = re.compile(r"%(%|[-+ #0]*\d*(?:\.\d+)?(?:hh|h|ll|l)?[a-zA-Z])")
MAX_VALUES = 12


class _Handle:
    """A GlobalTensor's address as a printf value."""

    def __init__(self, handle: int):
        self.handle = handle


def _value(param: Any, spec: str) -> Scalar:
    if isinstance(param, Scalar):
        return param
    if isinstance(param, bool) or not isinstance(param, (int, float)):
        raise CodegenError(f"printf: {spec} needs a number, got {type(param).__name__}")
    return to_scalar(param, dt.int32 if isinstance(param, int) else dt.float32)  # as pyasc: int32 / float32


@builtin
def printf(desc: str, *params: Any) -> None:
    """C-style printf from the scalar unit: ``asc.printf("x[%d] = %f\\n", i, v)``. Conversions: %d %i %u
    %x %X %o %c (integers), %f %F %e %E %g %G (floats), %%, %s (a Python string, substituted now, or a GM
    address: the NUL-terminated bytes there, the NUL inside its buffer) and %p (a GM address; the Model prints
    its byte offset in its kernel argument, having no device addresses)."""
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
        if spec[-1] in "sp" and isinstance(param, (GlobalAddress, GlobalTensor)):
            # a GM address: %s prints the NUL-terminated bytes there, %p the address, at run time
            out.append(spec)
            values.append(param if isinstance(param, GlobalAddress) else _Handle(param._require()))
            continue
        if spec.endswith("s"):
            if not isinstance(param, str):
                raise CodegenError(f"printf: %s takes a Python string or a GM address, got {type(param).__name__}")
            out.append(param.replace("%", "%%"))
            continue
        if spec.endswith("p"):
            raise CodegenError(f"printf: %p takes a GM address, got {type(param).__name__}")
        out.append(spec)
        values.append(_value(param, spec))
    out.append(desc[pos:])
    if rest:
        raise CodegenError(f"printf: {len(rest)} values more than the format's conversions")
    if len(values) > MAX_VALUES:
        raise CodegenError(f"printf: at most {MAX_VALUES} run-time values per call, got {len(values)}")
    current_builder().op("printf", [v.handle for v in values], {"format": "".join(out)})
    current_builder().prints = True


def _tensor_handle(tensor: Any, fn: str) -> int:
    if isinstance(tensor, GlobalTensor):
        return tensor._require()
    if isinstance(tensor, LocalTensor):
        return tensor.handle
    raise CodegenError(f"{fn}: the tensor must be a LocalTensor or GlobalTensor, got {type(tensor).__name__}")


@builtin
def dump_tensor(tensor: Any, desc: Any, dump_size: Any, shape_info: Optional[ShapeInfo] = None) -> None:
    """Prints ``DumpTensor: desc=.., addr=.., data_type=.., position=.., dump_size=N`` and the first
    `dump_size` elements of a LocalTensor or GlobalTensor (laid out by `shape_info`, if given)."""
    handle = _tensor_handle(tensor, "dump_tensor")
    if shape_info is not None and not isinstance(shape_info, ShapeInfo):
        raise CodegenError(f"dump_tensor: shape_info must be an asc.ShapeInfo, got {type(shape_info).__name__}")
    dims = [] if shape_info is None else shape_info.shape
    operands = [handle, to_int(desc, "dump_tensor desc").handle, to_int(dump_size, "dump_size").handle]
    operands += [to_int(d, "a ShapeInfo dimension").handle for d in dims]
    current_builder().op("dump_tensor", operands)
    current_builder().prints = True


@builtin
def dump_acc_chk_point(tensor: Any, index: Any, count_off: Any, dump_size: Any) -> None:
    """``AscendC::DumpAccChkPoint``: as dump_tensor, `dump_size` elements of a LocalTensor (in the Unified Buffer)
    or GlobalTensor from element `count_off` on, under the checkpoint number `index`. Prints
    ``DumpAccChkPoint: index=.., count_off=.., addr=.., data_type=.., position=.., dump_size=N`` and the elements."""
    handle = _tensor_handle(tensor, "dump_acc_chk_point")
    named = ((index, "index"), (count_off, "count_off"), (dump_size, "dump_size"))
    operands = [handle] + [to_int(v, f"dump_acc_chk_point {name}").handle for v, name in named]
    current_builder().op("dump_acc_chk_point", operands)
    current_builder().prints = True


@builtin
def print_time_stamp(desc_id: Any) -> None:
    """``AscendC::PrintTimeStamp(descId)``: prints ``descId is D, rsv is 0, timeStamp is C, pcPtr is 0, entry is 0.``
    where C is the core's cycle on the Model's timeline when the instruction is dispatched (the board prints its
    system cycle counter and program counter). Ids up to 0xffff are Ascend C's own; use larger ones."""
    current_builder().op("print_time_stamp", [to_int(desc_id, "print_time_stamp desc_id").handle])
    current_builder().prints = True


@builtin
def metrics_prof_start() -> None:
    """``AscendC::MetricsProfStart()``: where msProf starts sampling on the board. The Model times every
    instruction anyway: it only appears in traces."""
    current_builder().op("metrics_prof_start")


@builtin
def metrics_prof_stop() -> None:
    """``AscendC::MetricsProfStop()``: where msProf stops sampling on the board (see metrics_prof_start)."""
    current_builder().op("metrics_prof_stop")
