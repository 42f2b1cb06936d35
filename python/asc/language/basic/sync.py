"""Synchronisation between the pipes of one core."""

from __future__ import annotations

from typing import Any

from ...codegen.context import current_builder
from ...errors import CodegenError
from ..core.enums import HardEvent, PipeID
from ..core.ir_value import to_int
from .utils import builtin


def _flag(op: str, event: Any, event_id: Any) -> None:
    if not isinstance(event, HardEvent):
        raise CodegenError(f"{op}: event must be an asc.HardEvent such as asc.HardEvent.MTE2_V, got {event!r}")
    current_builder().op(op, [to_int(event_id, "event_id").handle], {"event": int(event)})


@builtin
def set_flag(event: HardEvent, event_id: Any = 0) -> None:
    """Sets flag `event_id` of `event` when the source pipe reaches this point."""
    _flag("set_flag", event, event_id)


@builtin
def wait_flag(event: HardEvent, event_id: Any = 0) -> None:
    """Holds the destination pipe until the matching set_flag has executed."""
    _flag("wait_flag", event, event_id)


@builtin
def pipe_barrier(pipe: PipeID) -> None:
    """Orders the instructions of one pipe (PIPE_ALL: waits for every pipe). `pipe` is an asc.PipeID or its
    value (pipe_barrier(0) is PIPE_S, as Ascend C's pipe_t numbers them)."""
    if isinstance(pipe, int) and not isinstance(pipe, (bool, PipeID)) and pipe in PipeID._value2member_map_:
        pipe = PipeID(pipe)
    if not isinstance(pipe, PipeID):
        raise CodegenError(f"pipe_barrier: pipe must be an asc.PipeID (or its int value), got {pipe!r}")
    current_builder().op("pipe_barrier", [], {"pipe": int(pipe)})
