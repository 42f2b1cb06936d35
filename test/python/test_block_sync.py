"""Synchronisation between blocks through a GM workspace: ib_set / ib_wait hand a GM buffer from block to block,
notify_next_block / wait_pre_block pass turns in block order, the software sync_all is a barrier; the accesses
they order are not reported as GM conflicts or races (and the same kernels without them are), waits nothing can
satisfy are deadlocks, workspaces too small or not zeroed are named."""

import warnings

import numpy as np
import pytest

import asc
import asc.lib.runtime as rt
from asc.runtime.config import KernelType

N = 64  # int32 elements each block adds to the shared buffer


def run_quietly(kernel, blocks, *args):
    """Launches and returns the Model's warnings (GM races and conflicts are among them)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        kernel[blocks, rt.current_stream()](*args)
    return [str(w.message) for w in caught]


@asc.jit
def relay(acc: asc.GlobalAddress, ws: asc.GlobalAddress, rounds: int, synced: asc.ConstExpr):
    """Block i adds i + 1 to every element of `acc`, after block i - 1 did, `rounds` times over."""
    acc_gm, ws_gm = asc.GlobalTensor(), asc.GlobalTensor()
    acc_gm.set_global_buffer(acc, N)
    ws_gm.set_global_buffer(ws)
    ub = asc.LocalTensor(asc.int32, asc.TPosition.VECCALC, 0, 8)
    buf = asc.LocalTensor(asc.int32, asc.TPosition.VECIN, 256, N)
    i = asc.get_block_idx()
    n = asc.get_block_num()
    for r in range(rounds):
        if synced:
            if i > 0:
                asc.ib_wait(ws_gm, ub, i - 1, 0)
            elif r > 0:
                asc.ib_wait(ws_gm, ub, n - 1, 0)
        asc.data_copy(buf, acc_gm, N)
        asc.set_flag(asc.HardEvent.MTE2_V, 0)
        asc.wait_flag(asc.HardEvent.MTE2_V, 0)
        asc.adds(buf, buf, i + 1, N)
        asc.set_flag(asc.HardEvent.V_MTE3, 0)
        asc.wait_flag(asc.HardEvent.V_MTE3, 0)
        asc.data_copy(acc_gm, buf, N)
        if synced:
            asc.ib_set(ws_gm, ub, i, 0)


@pytest.mark.parametrize("blocks, rounds", [(2, 1), (4, 3), (7, 2)])
def test_ib_set_and_wait_hand_a_buffer_on(blocks, rounds):
    acc = np.arange(N, dtype=np.int32)
    ws = np.zeros(8 * blocks, np.int32)
    caught = run_quietly(relay, blocks, acc, ws, rounds, True)
    np.testing.assert_array_equal(acc, np.arange(N) + rounds * blocks * (blocks + 1) // 2)
    assert not [w for w in caught if "racecheck" in w or "memcheck" in w], caught
    # the last block's last mark is still set; every other one was consumed
    slots = ws.reshape(blocks, 8)[:, 0]
    np.testing.assert_array_equal(slots, [0] * (blocks - 1) + [1])


def test_the_same_relay_unsynchronised_is_a_conflict():
    with pytest.raises(asc.errors.GmWriteConflictError, match="both write GM bytes"):
        relay[3, rt.current_stream()](np.zeros(N, np.int32), np.zeros(24, np.int32), 1, False)


@asc.jit
def waits_for_a_block_that_never_sets(ws: asc.GlobalAddress):
    ws_gm = asc.GlobalTensor()
    ws_gm.set_global_buffer(ws)
    ub = asc.LocalTensor(asc.int32, asc.TPosition.VECCALC, 0, 8)
    if asc.get_block_idx() == 0:
        asc.ib_wait(ws_gm, ub, 1, 2)


def test_a_wait_nothing_satisfies_is_a_deadlock():
    with pytest.raises(asc.errors.DeadlockError, match=r"ib_wait\(block 1, event 2\) on block 0 can never complete"):
        waits_for_a_block_that_never_sets[2, rt.current_stream()](np.zeros(2 * 8 * 3, np.int32))


def test_a_workspace_not_zeroed_lets_a_wait_through_early():
    # block 0's slot already holds a mark: block 1's ib_wait takes it and goes on while block 0 still works,
    # as on the board; their writes are then unordered
    ws = np.zeros(2 * 8, np.int32)
    ws[0] = 1
    with pytest.raises(asc.errors.GmWriteConflictError, match="blocks 0 and 1 both write GM bytes"):
        relay[2, rt.current_stream()](np.zeros(N, np.int32), ws, 1, True)


@asc.jit
def small_workspace(ws: asc.GlobalAddress):
    ws_gm = asc.GlobalTensor()
    ws_gm.set_global_buffer(ws, 16)
    ub = asc.LocalTensor(asc.int32, asc.TPosition.VECCALC, 0, 8)
    asc.ib_set(ws_gm, ub, asc.get_block_idx(), 1)


def test_a_workspace_too_small_for_the_event_is_named():
    with pytest.raises(asc.errors.OutOfBoundsError, match=r"ib_set: the GM workspace holds 64 bytes; the slot of"):
        small_workspace[2, rt.current_stream()](np.zeros(16, np.int32))


TURNS = 3


@asc.jit
def take_turns(log: asc.GlobalAddress, ws: asc.GlobalAddress, synced: asc.ConstExpr):
    """Each turn a block appends its index to the log (the next free place is log[0])."""
    log_gm, ws_gm = asc.GlobalTensor(), asc.GlobalTensor()
    log_gm.set_global_buffer(log)
    ws_gm.set_global_buffer(ws)
    ub = asc.LocalTensor(asc.int32, asc.TPosition.VECCALC, 0, 8 * 9)
    for _ in range(TURNS):
        if synced:
            asc.wait_pre_block(ws_gm, ub)
        at = log_gm.get_value(0)
        log_gm.set_value(1 + at, asc.get_block_idx())
        log_gm.set_value(0, at + 1)
        if synced:
            asc.notify_next_block(ws_gm, ub)


@pytest.mark.parametrize("blocks", [1, 3, 8])
def test_turns_pass_the_blocks_in_order(blocks):
    log = np.zeros(1 + TURNS * blocks, np.int32)
    ws = np.zeros(8 * blocks, np.int32)
    caught = run_quietly(take_turns, blocks, log, ws, True)
    assert log[0] == TURNS * blocks
    np.testing.assert_array_equal(log[1:], np.tile(np.arange(blocks), TURNS))
    np.testing.assert_array_equal(ws.reshape(blocks, 8)[:, 0], TURNS)  # each block's notifications
    assert not [w for w in caught if "racecheck" in w or "memcheck" in w], caught


def test_turns_without_the_protocol_conflict():
    with pytest.raises(asc.errors.GmWriteConflictError):
        take_turns[3, rt.current_stream()](np.zeros(1 + 9, np.int32), np.zeros(24, np.int32), False)


@asc.jit
def neighbours(x: asc.GlobalAddress, y: asc.GlobalAddress, ws: asc.GlobalAddress, synced: asc.ConstExpr):
    """Block i writes x[i], then reads its neighbour's x[(i + 1) % n] into y[i]."""
    x_gm, y_gm, ws_gm = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
    x_gm.set_global_buffer(x)
    y_gm.set_global_buffer(y)
    ws_gm.set_global_buffer(ws)
    ub = asc.LocalTensor(asc.int32, asc.TPosition.VECCALC, 0, 8 * 8)
    i = asc.get_block_idx()
    n = asc.get_block_num()
    for r in range(2):
        x_gm.set_value(8 * i, 10 * (r + 1) + i)
        if synced:
            asc.sync_all(ws_gm, ub)
        y_gm.set_value(8 * i + r, x_gm.get_value(8 * ((i + 1) % n)))
        if synced:
            asc.sync_all(ws_gm, ub, used_cores=0)


@pytest.mark.parametrize("blocks", [2, 5])
def test_the_software_sync_all_is_a_barrier(blocks):
    x = np.zeros(8 * blocks, np.int32)
    y = np.zeros(8 * blocks, np.int32)
    ws = np.zeros(8 * blocks, np.int32)
    caught = run_quietly(neighbours, blocks, x, y, ws, True)
    nxt = (np.arange(blocks) + 1) % blocks
    np.testing.assert_array_equal(y.reshape(blocks, 8)[:, 0], 10 + nxt)
    np.testing.assert_array_equal(y.reshape(blocks, 8)[:, 1], 20 + nxt)
    np.testing.assert_array_equal(ws.reshape(blocks, 8)[:, 0], 4)  # four rounds
    assert not [w for w in caught if "racecheck" in w], caught


def test_the_same_reads_unsynchronised_race():
    caught = run_quietly(neighbours, 3, np.zeros(24, np.int32), np.zeros(24, np.int32), np.zeros(24, np.int32), False)
    assert [w for w in caught if "racecheck" in w]


@asc.jit(kernel_type=KernelType.MIX_AIC_1_2)
def soft_sync_on_a_cube_core(ws: asc.GlobalAddress):
    ws_gm = asc.GlobalTensor()
    ws_gm.set_global_buffer(ws)
    ub = asc.LocalTensor(asc.int32, asc.TPosition.VECCALC, 0, 8 * 2)
    if asc.ascend_is_aic():
        asc.sync_all(ws_gm, ub)


def test_software_sync_all_is_for_vector_cores():
    with pytest.raises(asc.errors.KernelError, match="sync_all.soft on AIC 0: only vector cores take part"):
        soft_sync_on_a_cube_core[1, rt.current_stream()](np.zeros(16, np.int32))


def test_bad_arguments_are_named():
    @asc.jit
    def bad(ws: asc.GlobalAddress):
        ws_gm = asc.GlobalTensor()
        ws_gm.set_global_buffer(ws)
        ub = asc.LocalTensor(asc.int32, asc.TPosition.VECCALC, 0, 8)
        asc.sync_all(ws_gm, ub, is_aiv_only=False)

    with pytest.raises(asc.CodegenError, match="the software form synchronises vector cores only"):
        bad[1, rt.current_stream()](np.zeros(8, np.int32))

    @asc.jit
    def wrong_dtype(ws: asc.GlobalAddress):
        ws_gm = asc.GlobalTensor()
        ws_gm.set_global_buffer(ws)
        ub = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, 0, 8)
        asc.ib_set(ws_gm, ub, 0, 0)

    with pytest.raises(asc.CodegenError, match="ub_workspace must be an int32 LocalTensor"):
        wrong_dtype[1, rt.current_stream()](np.zeros(8, np.int32))
