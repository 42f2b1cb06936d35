"""An instruction addresses its own memory: mmad writes L0C, load_data reads L1 and writes L0A/L0B, fixpipe reads
L0C. A LocalTensor's TPosition is a label: on the board the instruction reads or writes its memory at the tensor's
address whatever the label says, and only Ascend C's CPU debug mode checks it. So, as the board does, a tensor
labelled for another memory is used at the instruction's memory (same address, same length), with a
PositionWarning naming the call; an address past that memory's end is the usual OutOfBoundsError."""

from __future__ import annotations

import warnings

from ...codegen.context import current_builder
from ...errors import PositionWarning
from ..core.enums import TPosition
from ..core.tensor import LocalTensor

_MEMORY = {
    TPosition.A1: "L1",
    TPosition.B1: "L1",
    TPosition.C1: "L1",
    TPosition.A2: "L0A",
    TPosition.B2: "L0B",
    TPosition.CO1: "L0C",
    TPosition.C2: "the bias table",
}


def memory_of(position: TPosition) -> str:
    return _MEMORY.get(position, "the Unified Buffer")


def addressed_as(tensor: LocalTensor, positions: tuple[TPosition, ...], fn: str, role: str) -> LocalTensor:
    """`tensor` as the instruction addresses it: itself when its position is one of `positions` (or in the same
    memory), else a view at positions[0] with its address and length, after a PositionWarning."""
    if tensor.handle is None or any(memory_of(tensor.position) == memory_of(p) for p in positions):
        return tensor
    wanted = positions[0]
    names = ", ".join(p.name for p in positions)
    file, line, _ = current_builder().loc
    warnings.warn_explicit(
        f"{fn}: {role} is a LocalTensor at TPosition.{tensor.position.name} ({memory_of(tensor.position)}), but "
        f"the instruction addresses {memory_of(wanted)} ({names}): as on the board, it uses {memory_of(wanted)} at "
        f"the tensor's address (Ascend C's CPU debug mode refuses it). Declare the tensor at TPosition.{wanted.name}",
        PositionWarning,
        file,
        line,
    )
    return LocalTensor(tensor.dtype, wanted, tensor.get_phy_addr(), tensor.get_size())
