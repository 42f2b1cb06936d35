"""Synchronisation between cores: a cube core handing data to its vector
cores (mode 2) and back, vector-core barriers (mode 0, sync_all), and waits
nothing can satisfy reported as deadlocks rather than hangs."""

import numpy as np
import pytest

import asc
import asc.lib.runtime as rt
from asc.runtime.config import KernelType


@asc.jit(kernel_type=KernelType.MIX_AIC_1_2)
def hand_over(box: asc.GlobalAddress, out: asc.GlobalAddress):
    """Each group's cube core writes a value; its two vector cores wait for it, add their index and write
    their result; then the cube core waits for both and writes the sum of theirs."""
    box_gm, out_gm = asc.GlobalTensor(), asc.GlobalTensor()
    box_gm.set_global_buffer(box)
    out_gm.set_global_buffer(out)
    if asc.ascend_is_aic():
        g = asc.get_block_idx()
        box_gm.set_value(g, 100 * (g + 1))
        asc.cross_core_set_flag(3, 2, asc.PipeID.PIPE_MTE3)
        asc.cross_core_wait_flag(4, 2, asc.PipeID.PIPE_MTE3)
        box_gm.set_value(64 + g, out_gm.get_value(2 * g) + out_gm.get_value(2 * g + 1))
    else:
        i = asc.get_block_idx()
        asc.cross_core_wait_flag(3, 2, asc.PipeID.PIPE_MTE3)
        out_gm.set_value(i, box_gm.get_value(i // 2) + i)
        asc.cross_core_set_flag(4, 2, asc.PipeID.PIPE_MTE3)


@pytest.mark.parametrize("groups", [1, 3, 8])
def test_cube_and_vector_cores_hand_data_over(groups):
    box = np.zeros(128, np.int32)
    out = np.zeros(64, np.int32)
    hand_over[groups, rt.current_stream()](box, out)
    i = np.arange(2 * groups)
    np.testing.assert_array_equal(out[: 2 * groups], 100 * (i // 2 + 1) + i)
    g = np.arange(groups)
    np.testing.assert_array_equal(box[64 : 64 + groups], out[2 * g] + out[2 * g + 1])


@asc.jit
def ring(x: asc.GlobalAddress, y: asc.GlobalAddress, ROUNDS: asc.ConstExpr[int], USE_SYNC_ALL: asc.ConstExpr[bool]):
    """Every vector core writes its slot, waits for all, then reads its neighbour's slot — twice."""
    x_gm, y_gm = asc.GlobalTensor(), asc.GlobalTensor()
    x_gm.set_global_buffer(x)
    y_gm.set_global_buffer(y)
    i = asc.get_block_idx()
    n = asc.get_block_num()
    for r in range(ROUNDS):
        x_gm.set_value(r * 64 + i, (i + 1) * (r + 1))
        if USE_SYNC_ALL:
            asc.sync_all()
        else:
            asc.cross_core_set_flag(1, 0, asc.PipeID.PIPE_MTE3)
            asc.cross_core_wait_flag(1, 0, asc.PipeID.PIPE_MTE3)
        y_gm.set_value(r * 64 + i, x_gm.get_value(r * 64 + (i + 1) % n))


@pytest.mark.parametrize("use_sync_all", [False, True])
@pytest.mark.parametrize("cores", [2, 5, 16])
def test_barriers_order_every_vector_core(use_sync_all, cores):
    x = np.zeros(128, np.int32)
    y = np.zeros(128, np.int32)
    ring[cores, rt.current_stream()](x, y, 2, use_sync_all)
    for r in range(2):
        i = np.arange(cores)
        np.testing.assert_array_equal(y[r * 64 : r * 64 + cores], ((i + 1) % cores + 1) * (r + 1))


@asc.jit(kernel_type=KernelType.MIX_AIC_1_2)
def waits_for_nothing(x: asc.GlobalAddress):
    if asc.ascend_is_aiv():
        asc.cross_core_wait_flag(5, 2, asc.PipeID.PIPE_MTE3)  # the cube core never sets it


def test_a_wait_nothing_can_satisfy_is_a_deadlock():
    with pytest.raises(
        asc.errors.DeadlockError, match=r"cross_core_wait_flag\(flag 5, mode 2\) on AIV 0 can never"
    ) as e:
        waits_for_nothing[2, rt.current_stream()](np.zeros(8, np.int32))
    assert "test_cross_core.py" in str(e.value)


@asc.jit(kernel_type=KernelType.MIX_AIC_1_2)
def one_core_fails(x: asc.GlobalAddress):
    x_gm = asc.GlobalTensor()
    x_gm.set_global_buffer(x, 8)
    if asc.ascend_is_aic():
        x_gm.set_value(100, 1)  # out of bounds: the cube core fails before it sets the flag
        asc.cross_core_set_flag(2, 2, asc.PipeID.PIPE_MTE3)
    else:
        asc.cross_core_wait_flag(2, 2, asc.PipeID.PIPE_MTE3)


def test_the_failing_core_is_reported_not_the_cores_waiting_for_it():
    with pytest.raises(asc.errors.OutOfBoundsError, match="AIC 0"):
        one_core_fails[1, rt.current_stream()](np.zeros(8, np.int32))


def test_cross_core_arguments_are_checked():
    @asc.jit(kernel_type=KernelType.MIX_AIC_1_2)
    def bad_mode(x: asc.GlobalAddress):
        asc.cross_core_set_flag(1, 4, asc.PipeID.PIPE_MTE3)

    with pytest.raises(asc.CodegenError, match="mode 4 does not exist on Atlas A2"):
        bad_mode[1, rt.current_stream()](np.zeros(8, np.int32))


@asc.jit(kernel_type=KernelType.MIX_AIC_1_2)
def copies_then_hand_over(x: asc.GlobalAddress, CUBE_COPIES: asc.ConstExpr[int], VECTOR_COPIES: asc.ConstExpr[int]):
    """The cube core makes CUBE_COPIES copies into L1, then releases its vector cores, which make
    VECTOR_COPIES copies into the Unified Buffer."""
    x_gm = asc.GlobalTensor()
    x_gm.set_global_buffer(x)
    if asc.ascend_is_aic():
        l1 = asc.LocalTensor(asc.float32, asc.TPosition.A1, 0, 16384)
        for _ in range(CUBE_COPIES):
            asc.data_copy(l1, x_gm, 16384)
        asc.cross_core_set_flag(5, 2, asc.PipeID.PIPE_MTE2)
    else:
        ub = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 16384)
        asc.cross_core_wait_flag(5, 2, asc.PipeID.PIPE_MTE2)
        for _ in range(VECTOR_COPIES):
            asc.data_copy(ub, x_gm, 16384)


def test_a_wait_on_another_core_is_timed():
    """The vector cores' copies start when the cube core's flag is set: the estimate is about the sum of
    both cores' work, not the larger one."""
    x = np.ones(16384, np.float32)

    def cycles(cube, vector):
        copies_then_hand_over[1, rt.current_stream()](x, cube, vector)
        return rt.last_launch_stats().cycles

    # a cube core's GM copies run about three times a vector core's rate (82 against 26 bytes a cycle): 60 of
    # its copies take about as long as 20 of the vector cores'
    cube_only, vector_only, both = cycles(60, 0), cycles(0, 20), cycles(60, 20)
    assert both > 1.6 * max(cube_only, vector_only)
    assert both <= cube_only + vector_only
