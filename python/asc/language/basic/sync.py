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


def _pipe(pipe: Any, what: str) -> PipeID:
    """An asc.PipeID, or its int value (0 is PIPE_S, as Ascend C's pipe_t numbers them)."""
    if isinstance(pipe, int) and not isinstance(pipe, (bool, PipeID)) and pipe in PipeID._value2member_map_:
        pipe = PipeID(pipe)
    if not isinstance(pipe, PipeID):
        raise CodegenError(f"{what}: pipe must be an asc.PipeID (or its int value), got {pipe!r}")
    return pipe


@builtin
def pipe_barrier(pipe: PipeID) -> None:
    """Orders the instructions of one pipe (PIPE_ALL: waits for every pipe). `pipe` is an asc.PipeID or its
    value (pipe_barrier(0) is PIPE_S, as Ascend C's pipe_t numbers them)."""
    current_builder().op("pipe_barrier", [], {"pipe": int(_pipe(pipe, "pipe_barrier"))})


def _buffer_token(op: str, pipe: Any, buf_id: Any, mode: Any) -> None:
    p = _pipe(pipe, op)
    if p == PipeID.PIPE_ALL:
        raise CodegenError(f"{op}: pipe must be one pipe, not PIPE_ALL")
    if not isinstance(mode, (bool, int)) or mode not in (0, 1):
        raise CodegenError(f"{op}: mode is a compile-time bool, got {mode!r}")
    current_builder().op(op, [to_int(buf_id, "buf_id").handle], {"pipe": int(p), "mode": int(mode)})


@builtin
def get_buf(pipe: PipeID, buf_id: Any, mode: bool = False) -> None:
    """Ascend 950's buffer token (the CCE intrinsic get_buf): holds `pipe` until every get_buf of `buf_id` (0..31)
    issued before this one was released (rls_buf), then holds the id. Accesses of one buffer from different pipes,
    each between its get_buf and rls_buf, so happen in program order. Atlas A2/A3 have no buffer tokens: a launch
    there is a KernelError."""
    _buffer_token("get_buf", pipe, buf_id, mode)


@builtin
def rls_buf(pipe: PipeID, buf_id: Any, mode: bool = False) -> None:
    """Releases the `buf_id` `pipe` holds (get_buf) once the pipe's earlier instructions completed."""
    _buffer_token("rls_buf", pipe, buf_id, mode)
