"""data_copy with DataCopyParams in every direction, against numpy."""

import numpy as np
import pytest

import asc
import asc.lib.runtime as rt

F32_PER_BLOCK = 8


@asc.jit
def strided_round_trip(x: asc.GlobalAddress, z: asc.GlobalAddress, rows: int, length: int, gm_gap: int,
                       ub_gap: int, out_gap: int):  # fmt: skip
    """GM -> UB with gaps on both sides, UB -> UB (compacting), UB -> GM with a gap on the GM side."""
    x_gm = asc.GlobalTensor()
    z_gm = asc.GlobalTensor()
    x_gm.set_global_buffer(x)
    z_gm.set_global_buffer(z)
    a = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 16384)
    b = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, 65536, 16384)
    asc.data_copy(a, x_gm, asc.DataCopyParams(rows, length, gm_gap, ub_gap))
    asc.set_flag(asc.HardEvent.MTE2_V, 0)
    asc.wait_flag(asc.HardEvent.MTE2_V, 0)
    asc.data_copy(b, a, repeat_params=asc.DataCopyParams(rows, length, ub_gap, 0))
    asc.set_flag(asc.HardEvent.V_MTE3, 0)
    asc.wait_flag(asc.HardEvent.V_MTE3, 0)
    asc.data_copy(z_gm, b, asc.DataCopyParams(rows, length, 0, out_gap))


def blocks_view(a, pitch, rows, length):
    """The `length`-block rows of a flat float32 array laid out with `pitch` blocks per row."""
    return np.stack([a[r * pitch * F32_PER_BLOCK : (r * pitch + length) * F32_PER_BLOCK] for r in range(rows)])


@pytest.mark.parametrize("rows,length,gm_gap,ub_gap,out_gap", [(1, 4, 0, 0, 0), (5, 3, 2, 1, 4), (16, 1, 7, 0, 1),
                                                                (3, 10, 0, 5, 0)])  # fmt: skip
def test_rows_with_gaps(rows, length, gm_gap, ub_gap, out_gap, rng):
    x = rng.random(4096, dtype=np.float32)
    z = np.full(4096, -1.0, np.float32)
    strided_round_trip[1, rt.current_stream()](x, z, rows, length, gm_gap, ub_gap, out_gap)
    want_rows = blocks_view(x, length + gm_gap, rows, length)
    np.testing.assert_array_equal(blocks_view(z, length + out_gap, rows, length), want_rows)
    # the gaps on the GM destination side are untouched
    written = np.zeros(z.size, bool)
    for r in range(rows):
        written[r * (length + out_gap) * F32_PER_BLOCK : (r * (length + out_gap) + length) * F32_PER_BLOCK] = True
    assert np.all(z[~written] == -1.0)


def test_params_beyond_the_buffer_are_out_of_bounds():
    x = np.zeros(64, np.float32)
    stream = rt.current_stream()
    stream.set_strict(True)  # the board reads on into its allocator's segment (test_board_memory.py)
    try:
        with pytest.raises(asc.errors.OutOfBoundsError, match="data_copy.gm_to_local.blocks reads"):
            strided_round_trip[1, stream](x, np.zeros_like(x), 3, 2, 2, 0, 0)  # needs 10 blocks, has 8
    finally:
        stream.set_strict(False)
    with pytest.raises(asc.errors.KernelError, match="block_count 5000 must be 0..4095"):
        strided_round_trip[1, rt.current_stream()](x, np.zeros_like(x), 5000, 1, 0, 0, 0)


TILE = 8192  # float32 elements a tile (32 KiB)


@asc.jit
def tiled_copy(x: asc.GlobalAddress, z: asc.GlobalAddress, tiles: int):
    """GM -> UB -> GM a tile at a time: the copies out of a large output take the Model's streaming stores."""
    x_gm, z_gm = asc.GlobalTensor(), asc.GlobalTensor()
    x_gm.set_global_buffer(x)
    z_gm.set_global_buffer(z)
    a = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, TILE)
    for i in range(tiles):
        asc.data_copy(a, x_gm[i * TILE :], TILE)
        asc.set_flag(asc.HardEvent.MTE2_MTE3, 0)
        asc.wait_flag(asc.HardEvent.MTE2_MTE3, 0)
        asc.data_copy(z_gm[i * TILE :], a, TILE)
        asc.set_flag(asc.HardEvent.MTE3_MTE2, 0)
        asc.wait_flag(asc.HardEvent.MTE3_MTE2, 0)


@pytest.mark.parametrize("sanitize", [True, False])
@pytest.mark.parametrize("skew", [0, 1, 4])  # float32 elements: the output 0, 4 and 16 bytes past numpy's alignment
def test_large_outputs_are_written_exactly(sanitize, skew, rng):
    tiles = 384  # 12 MiB: past the size from which copies into GM stream (copy_bytes.h)
    x = rng.random(tiles * TILE, dtype=np.float32)
    backing = np.full(tiles * TILE + 16, -7.0, np.float32)
    z = backing[skew : skew + tiles * TILE]
    stream = rt.current_stream()
    stream.set_sanitize(sanitize)
    try:
        tiled_copy[1, stream](x, z, tiles)
    finally:
        stream.set_sanitize(True)
    np.testing.assert_array_equal(z, x)
    assert np.all(backing[:skew] == -7.0) and np.all(backing[skew + tiles * TILE :] == -7.0)
