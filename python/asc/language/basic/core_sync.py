"""Synchronisation between cores: cross_core_set_flag / cross_core_wait_flag
(Atlas A2 modes 0, 1, 2), sync_all (the hardware and the software form), and
the GM-workspace protocols ib_set / ib_wait and notify_next_block /
wait_pre_block. The Model runs a kernel that uses them with every core on a
thread of its own; a wait that nothing can satisfy any more is a
DeadlockError, never a hang. Accesses these order between blocks are not
reported as GM conflicts or races (the protocols are in src/sim/gm_sync_ops.cpp)."""

from __future__ import annotations

from typing import Any

from ...codegen.context import current_builder
from ...errors import CodegenError
from ..core.enums import PipeID
from ..core.ir_value import to_int
from ..core.tensor import GlobalTensor, LocalTensor
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


def _workspaces(fn: str, gm_workspace: Any, ub_workspace: Any) -> list[int]:
    if not isinstance(gm_workspace, GlobalTensor):
        raise CodegenError(f"{fn}: gm_workspace must be an int32 asc.GlobalTensor, got {type(gm_workspace).__name__}")
    if not isinstance(ub_workspace, LocalTensor):
        raise CodegenError(f"{fn}: ub_workspace must be an int32 asc.LocalTensor, got {type(ub_workspace).__name__}")
    return [gm_workspace.handle, ub_workspace.handle]


@builtin
def sync_all(gm_workspace: Any = None, ub_workspace: Any = None, used_cores: Any = 0, is_aiv_only: bool = True) -> None:
    """Every vector core (or, with is_aiv_only=False, every core) reaches this point before any goes on.

    The software form ``sync_all(gm_workspace, ub_workspace, used_cores=0)`` does it through an int32 GM
    workspace of used_cores * 32 bytes, zero before the first call (used_cores 0: every vector core), and as
    much UB; vector cores only, as in Ascend C."""
    if isinstance(gm_workspace, bool):  # sync_all(False): the hard form's is_aiv_only, given positionally
        gm_workspace, is_aiv_only = None, gm_workspace
    if gm_workspace is None and ub_workspace is None:
        current_builder().op("sync_all", [], {"aiv_only": int(bool(is_aiv_only))})
        return
    if not is_aiv_only:
        raise CodegenError(
            "sync_all: the software form synchronises vector cores only (is_aiv_only=False needs the "
            "hardware form, sync_all(is_aiv_only=False))"
        )
    operands = _workspaces("sync_all", gm_workspace, ub_workspace)
    current_builder().op("sync_all.soft", [*operands, to_int(used_cores, "used_cores").handle])


def _semaphore(op: str, gm_workspace: Any, ub_workspace: Any, block_idx: Any, event_id: Any, is_aiv_only: Any) -> None:
    operands = _workspaces(op, gm_workspace, ub_workspace)
    operands += [to_int(block_idx, "block_idx").handle, to_int(event_id, "event_id").handle]
    current_builder().op(op, operands, {"aiv_only": int(bool(is_aiv_only))})


@builtin
def ib_set(gm_workspace: Any, ub_workspace: Any, block_idx: Any, event_id: Any, is_aiv_only: bool = True) -> None:
    """``AscendC::IBSet``: marks event `event_id` of block `block_idx` done in the int32 GM workspace (its slot,
    32 bytes at (cores * event_id + block_idx) * 32, must be 0 first: the call waits until it is, then writes 1;
    cores is the block count, twice it in a mix kernel with is_aiv_only=False). Pairs with ib_wait; the
    workspace starts zeroed, the UB workspace holds 32 bytes."""
    _semaphore("ib_set", gm_workspace, ub_workspace, block_idx, event_id, is_aiv_only)


@builtin
def ib_wait(gm_workspace: Any, ub_workspace: Any, block_idx: Any, event_id: Any, is_aiv_only: bool = True) -> None:
    """``AscendC::IBWait``: waits until block `block_idx` marked event `event_id` (its slot is 1), then clears the
    mark, so the pair can be used again. Everything the setter did before ib_set happens before what follows."""
    _semaphore("ib_wait", gm_workspace, ub_workspace, block_idx, event_id, is_aiv_only)


@builtin
def notify_next_block(gm_workspace: Any, ub_workspace: Any) -> None:
    """``AscendC::NotifyNextBlock``: tells the next block this block's turn is over (adds 1 to its slot of the
    int32 GM workspace of block_num * 32 zeroed bytes; the UB workspace holds block_num * 32 + 32 bytes)."""
    current_builder().op("notify_next_block", _workspaces("notify_next_block", gm_workspace, ub_workspace))


@builtin
def wait_pre_block(gm_workspace: Any, ub_workspace: Any) -> None:
    """``AscendC::WaitPreBlock``: waits for the previous block's turn: the k-th call of block i waits until block
    i - 1 called notify_next_block k + 1 times (block 0: until the last block did k times), so rounds of
    wait_pre_block / work / notify_next_block pass the blocks in order 0, 1, ..., n - 1, 0, ... Every block calls
    both the same number of times."""
    current_builder().op("wait_pre_block", _workspaces("wait_pre_block", gm_workspace, ub_workspace))
