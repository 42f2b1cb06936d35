"""Synchronisation between cores: cross_core_set_flag / cross_core_wait_flag
(Atlas A2 modes 0, 1, 2) and sync_all. The Model runs a kernel that uses them
with every core on a thread of its own; a wait that nothing can satisfy any
more is a DeadlockError, never a hang."""

from __future__ import annotations

from typing import Any

from ...codegen.context import current_builder
from ...errors import CodegenError
from ..core.enums import PipeID
from ..core.ir_value import to_int
from .utils import builtin


def _cross(op: str, flag_id: Any, mode_id: Any, pipe: Any) -> None:
    if not isinstance(mode_id, int) or isinstance(mode_id, bool):
        raise CodegenError(f"{op}: mode_id must be a compile-time 0, 1 or 2")
    if not isinstance(pipe, PipeID):
        raise CodegenError(f"{op}: pipe must be an asc.PipeID, got {pipe!r}")
    attrs = {"mode": mode_id, "pipe": int(pipe)}
    current_builder().op(op, [to_int(flag_id, "flag_id").handle], attrs)


@builtin
def cross_core_set_flag(flag_id: Any, mode_id: int, pipe: PipeID) -> None:
    """Sets flag `flag_id` (0..15) for other cores once `pipe` reaches it: mode 0 every core of this kind,
    1 the other vector core of the group, 2 the group's cube core (from a vector core) or both vector cores
    (from the cube core)."""
    _cross("cross_core_set_flag", flag_id, mode_id, pipe)


@builtin
def cross_core_wait_flag(flag_id: Any, mode_id: int = 0, pipe: PipeID = PipeID.PIPE_MTE3) -> None:
    """Waits until the flag is set for this core (mode 0 and 1: until every core of the set has set it; mode 2
    on the cube core: until both vector cores have)."""
    _cross("cross_core_wait_flag", flag_id, mode_id, pipe)


@builtin
def sync_all(gm_workspace: Any = None, ub_workspace: Any = None, used_cores: int = 0, is_aiv_only: bool = True) -> None:
    """Every vector core (or, with is_aiv_only=False, every core) reaches this point before any goes on."""
    if isinstance(gm_workspace, bool):  # sync_all(False): the hard form's is_aiv_only, given positionally
        gm_workspace, is_aiv_only = None, gm_workspace
    if gm_workspace is not None or ub_workspace is not None:
        raise CodegenError("sync_all: the software form with GM/UB workspaces is not supported; use sync_all()")
    current_builder().op("sync_all", [], {"aiv_only": int(bool(is_aiv_only))})
