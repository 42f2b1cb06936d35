"""The sync inserter (insert_sync) and auto_sync's scope."""

import numpy as np
import pytest

import asc
import asc.lib.runtime as rt

from kernels import BUFFER_NUM, TILE_NUM, block_views


@asc.jit(insert_sync=True)
def vadd_no_flags(x: asc.GlobalAddress, y: asc.GlobalAddress, z: asc.GlobalAddress, block_length: int):
    """examples/add.py's kernel with every set_flag/wait_flag deleted."""
    (x_gm, y_gm, z_gm), tiles_length = block_views(x, y, z, block_length)
    tile = tiles_length // BUFFER_NUM
    size = tile * BUFFER_NUM * x.dtype.sizeof()
    x_ub = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, tile * BUFFER_NUM)
    y_ub = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, size, tile * BUFFER_NUM)
    z_ub = asc.LocalTensor(x.dtype, asc.TPosition.VECOUT, 2 * size, tile * BUFFER_NUM)
    for i in range(TILE_NUM * BUFFER_NUM):
        b = i % BUFFER_NUM
        asc.data_copy(x_ub[b * tile :], x_gm[i * tile :], tile)
        asc.data_copy(y_ub[b * tile :], y_gm[i * tile :], tile)
        asc.add(z_ub[b * tile :], x_ub[b * tile :], y_ub[b * tile :], tile)
        asc.data_copy(z_gm[i * tile :], z_ub[b * tile :], tile)


def sync_ops(ir_text):
    lines = ir_text.splitlines()
    return (sum("set_flag" in line for line in lines), sum("wait_flag" in line for line in lines),
            sum("pipe_barrier" in line for line in lines))  # fmt: skip


@pytest.mark.parametrize("cores", [1, 8, 48])
def test_flagless_add_is_correct_with_no_more_syncs_than_by_hand(cores, rng):
    from kernels import vadd_manual_sync  # the hand-synchronised original

    block_length = TILE_NUM * BUFFER_NUM * 64
    x = rng.random(cores * block_length, dtype=np.float32)
    y = rng.random(cores * block_length, dtype=np.float32)
    z = np.zeros_like(x)
    vadd_no_flags[cores, rt.current_stream()](x, y, z, block_length)
    np.testing.assert_array_equal(z, x + y)
    inserted = sync_ops(vadd_no_flags.ir(x, y, z, block_length))
    by_hand = sync_ops(vadd_manual_sync.ir(x, y, z, block_length))
    assert inserted[0] == inserted[1] and by_hand[0] == by_hand[1]
    assert inserted[0] + inserted[2] <= by_hand[0] + by_hand[2]
    assert inserted[0] == 3  # MTE2->V, V->MTE3 and one MTE3->MTE2 for both loop-carried hazards


@asc.jit
def auto_tensors(x: asc.GlobalAddress, y: asc.GlobalAddress, z: asc.GlobalAddress, TILE: asc.ConstExpr[int],
                 TILES: asc.ConstExpr[int]):  # fmt: skip
    x_gm = asc.GlobalTensor()
    y_gm = asc.GlobalTensor()
    z_gm = asc.GlobalTensor()
    x_gm.set_global_buffer(x)
    y_gm.set_global_buffer(y)
    z_gm.set_global_buffer(z)
    for i in range(TILES):
        a = asc.LocalTensorAuto(x.dtype, TILE)
        b = asc.LocalTensorAuto(x.dtype, TILE)
        asc.data_copy(a, x_gm[i * TILE :], TILE)
        asc.data_copy(b, y_gm[i * TILE :], TILE)
        c = asc.LocalTensorAuto(x.dtype, TILE)
        asc.mul(c, a, b, TILE)
        asc.add(c, c, a, TILE)
        asc.data_copy(z_gm[i * TILE :], c, TILE)


def test_local_tensor_auto_implies_insert_sync(rng):
    x, y = rng.random(2048, dtype=np.float32), rng.random(2048, dtype=np.float32)
    z = np.zeros_like(x)
    auto_tensors[1, rt.current_stream()](x, y, z, 256, 8)
    np.testing.assert_array_equal(z, x * y + x)
    text = auto_tensors.ir(x, y, z, 256, 8)
    assert "local_tensor.auto" not in text
    for event in ("MTE2_V", "V_MTE3", "MTE3_MTE2"):
        assert f"event = {event}" in text
    assert "pipe_barrier {pipe = V}" in text  # add reads what mul just wrote


@asc.jit(insert_sync=True)
def branchy(x: asc.GlobalAddress, z: asc.GlobalAddress, n: asc.ConstExpr[int], square: int):
    x_gm = asc.GlobalTensor()
    z_gm = asc.GlobalTensor()
    x_gm.set_global_buffer(x, n)
    z_gm.set_global_buffer(z, n)
    a = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, n)
    c = asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, n * 4, n)
    asc.data_copy(a, x_gm, n)
    if square == 1:
        asc.mul(c, a, a, n)
    else:
        asc.add(c, a, a, n)
    asc.data_copy(z_gm, c, n)


@pytest.mark.parametrize("square", [0, 1])
def test_if_branches(square, rng):
    x = rng.random(256, dtype=np.float32)
    z = np.zeros_like(x)
    branchy[1, rt.current_stream()](x, z, 256, square)
    np.testing.assert_array_equal(z, x * x if square else x + x)


@asc.jit(insert_sync=True)
def sum_by_scalar(x: asc.GlobalAddress, z: asc.GlobalAddress, n: asc.ConstExpr[int]):
    """A loop with no loop-carried hazard: it only reads what was copied in before it."""
    x_gm = asc.GlobalTensor()
    z_gm = asc.GlobalTensor()
    x_gm.set_global_buffer(x, n)
    z_gm.set_global_buffer(z, 8)
    a = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, n)
    out = asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, 4096, 8)
    asc.data_copy(a, x_gm, n)
    total = 0.0
    for i in range(n):
        total = total + a.get_value(i)
    asc.duplicate(out, total, 8)
    asc.data_copy(z_gm, out, 8)


def test_loop_without_carried_dependence(rng):
    x = rng.integers(0, 10, 64).astype(np.float32)
    z = np.zeros(8, np.float32)
    sum_by_scalar[1, rt.current_stream()](x, z, 64)
    assert np.all(z == x.sum())
    text = sum_by_scalar.ir(x, z, 64)
    loop = text[text.index("for %") : text.index("duplicate")]
    assert loop.count("set_flag") == 1 and "MTE2_S" in loop  # copy-in before the scalar reads; nothing carried
    assert "MTE3_MTE2" not in text and "V_MTE2" not in text


@asc.jit
def scalar_then_copy_out(z: asc.GlobalAddress, value: float):
    z_gm = asc.GlobalTensor()
    z_gm.set_global_buffer(z, 8)
    t = asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, 0, 8)
    for i in range(8):
        t.set_value(i, value + i)
    asc.data_copy(z_gm, t, 8)


scalar_then_copy_out_unsynced = asc.jit(auto_sync=False)(scalar_then_copy_out.fn)


def test_auto_sync_orders_scalar_writes_before_copy_out():
    z = np.zeros(8, np.float32)
    scalar_then_copy_out[1, rt.current_stream()](z, 1.5)
    np.testing.assert_array_equal(z, 1.5 + np.arange(8, dtype=np.float32))
    assert "S_MTE3" in scalar_then_copy_out.ir(z, 1.5)
    assert "S_MTE3" not in scalar_then_copy_out_unsynced.ir(z, 1.5)


@asc.jit
def copy_then_add_without_flags(x: asc.GlobalAddress, z: asc.GlobalAddress, n: asc.ConstExpr[int]):
    x_gm = asc.GlobalTensor()
    x_gm.set_global_buffer(x, n)
    a = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, n)
    c = asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, n * 4, n)
    asc.data_copy(a, x_gm, n)
    asc.add(c, a, a, n)
    asc.mul(c, c, a, n)


def test_auto_sync_leaves_pipe_to_pipe_hand_over_alone():
    x = np.zeros(64, np.float32)
    text = copy_then_add_without_flags.ir(x, x, 64)
    assert "MTE2_V" not in text  # MTE2 -> V is the framework's or the user's job
    assert "pipe_barrier {pipe = V}" in text  # but V -> V is auto_sync's


@asc.jit(auto_sync=False)
def barrier_all_instead_of_flags(x: asc.GlobalAddress, z: asc.GlobalAddress, n: asc.ConstExpr[int]):
    x_gm = asc.GlobalTensor()
    z_gm = asc.GlobalTensor()
    x_gm.set_global_buffer(x, n)
    z_gm.set_global_buffer(z, n)
    a = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, n)
    c = asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, n * 4, n)
    asc.data_copy(a, x_gm[0], n)  # t[i] is a view from element i, like t[i:]
    asc.pipe_barrier(asc.PipeID.PIPE_ALL)
    asc.add(c, a, a, n)
    asc.pipe_barrier(asc.PipeID.PIPE_V)
    asc.mul(c, c, a, n)
    asc.pipe_barrier(asc.PipeID.PIPE_ALL)
    asc.data_copy(z_gm[0], c, n)


def test_pipe_barriers(rng):
    x = rng.random(128, dtype=np.float32)
    z = np.zeros_like(x)
    barrier_all_instead_of_flags[1, rt.current_stream()](x, z, 128)
    np.testing.assert_array_equal(z, (x + x) * x)
    text = barrier_all_instead_of_flags.ir(x, z, 128)
    assert text.count("pipe_barrier {pipe = ALL}") == 2 and text.count("pipe_barrier {pipe = V}") == 1


def test_scalar_hazard_is_ordered_with_auto_sync_and_reported_without():
    from asc.errors import RaceError

    z = np.zeros(8, np.float32)
    scalar_then_copy_out[1, rt.current_stream()](z, 2.0)
    with pytest.raises(RaceError, match="S_MTE3"):
        scalar_then_copy_out_unsynced[1, rt.current_stream()](z, 2.0)
