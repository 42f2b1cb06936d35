"""Each block starts from a core's reset state, whatever the block before it on the same host thread left behind.
The Model runs a launch's blocks one after another on each host thread, restarting one Block for each: a register
or flag one block leaves set must not reach the next, as on the board, where each block has its own core."""

import numpy as np
import pytest

import asc
import asc.lib.runtime as rt
from asc.errors import DeadlockError

N = 64  # float32 elements: one repeat


@asc.jit
def atomic_left_on(x: asc.GlobalAddress, out: asc.GlobalAddress):
    """Block 0 copies its tile with atomic add and leaves the register set; the others copy theirs plainly."""
    block = asc.get_block_idx()
    x_gm, out_gm = asc.GlobalTensor(), asc.GlobalTensor()
    x_gm.set_global_buffer(x)
    out_gm.set_global_buffer(out)
    buf = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, N)
    asc.data_copy(buf, x_gm[block * N :], N)
    asc.set_flag(asc.HardEvent.MTE2_MTE3, 0)
    asc.wait_flag(asc.HardEvent.MTE2_MTE3, 0)
    if block == 0:
        asc.set_atomic_add(asc.float32)
    asc.data_copy(out_gm[block * N :], buf, N)


def test_an_atomic_mode_left_set_stays_in_its_block():
    blocks = 4
    x = np.arange(blocks * N, dtype=np.float32)
    out = np.full(blocks * N, 1000, np.float32)
    for _ in range(2):  # the second launch's block 0 restarts the Block the first launch's last block left
        got = out.copy()
        atomic_left_on[blocks, rt.current_stream()](x, got)
        np.testing.assert_array_equal(got[:N], 1000 + x[:N])
        np.testing.assert_array_equal(got[N:], x[N:])


@asc.jit
def flag_left_set(x: asc.GlobalAddress):
    """Block 0 sets a flag it never waits for; block 1 waits for one it never set."""
    if asc.get_block_idx() == 0:
        asc.set_flag(asc.HardEvent.V_MTE3, 3)
    else:
        asc.wait_flag(asc.HardEvent.V_MTE3, 3)


def test_a_flag_one_block_set_does_not_release_the_next_blocks_wait():
    x = np.zeros(8, np.float32)
    with pytest.raises(DeadlockError, match=r"block 1\b.*wait_flag\(HardEvent\.V_MTE3, 3\)"):
        flag_left_set[2, rt.current_stream()](x)


@asc.jit
def mask_left_set(x: asc.GlobalAddress, sel: asc.GlobalAddress, z: asc.GlobalAddress):
    """Every block selects x into its tile of z through the mask register (select's register form); block 0
    first narrows the mask to 8 elements and leaves it so."""
    block = asc.get_block_idx()
    x_gm, sel_gm, z_gm = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
    x_gm.set_global_buffer(x)
    sel_gm.set_global_buffer(sel)
    z_gm.set_global_buffer(z)
    a = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, N)
    b = asc.LocalTensor(asc.uint8, asc.TPosition.VECIN, 1024, 32)
    c = asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, 2048, N)
    asc.data_copy(a, x_gm[block * N :], N)
    asc.data_copy(b, sel_gm, 32)
    asc.data_copy(c, z_gm[block * N :], N)
    asc.set_flag(asc.HardEvent.MTE2_V, 0)
    asc.wait_flag(asc.HardEvent.MTE2_V, 0)
    asc.set_cmp_mask(b)
    if block == 0:
        asc.set_vector_mask(8, dtype=asc.float32, mode=asc.MaskMode.NORMAL)
    asc.select(c, a, a, repeat_times=1, repeat_params=asc.BinaryRepeatParams(1, 1, 1, 8, 8, 8),
               sel_mode=asc.SelMode.VSEL_CMPMASK_SPR)  # fmt: skip
    asc.set_flag(asc.HardEvent.V_MTE3, 0)
    asc.wait_flag(asc.HardEvent.V_MTE3, 0)
    asc.data_copy(z_gm[block * N :], c, N)


def test_a_vector_mask_left_set_stays_in_its_block():
    blocks = 3
    x = np.arange(1, blocks * N + 1, dtype=np.float32)
    sel = np.zeros(32, np.uint8)
    z = np.full(blocks * N, -1, np.float32)
    mask_left_set[blocks, rt.current_stream()](x, sel, z)
    np.testing.assert_array_equal(z[:8], x[:8])  # block 0: its 8 elements
    np.testing.assert_array_equal(z[8:N], -1)
    np.testing.assert_array_equal(z[N:], x[N:])  # the others: the whole repeat (the register's reset value)
