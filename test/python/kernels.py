"""Kernels shared by several tests (written for these tests, in the pyasc style)."""

import asc

TILE_NUM = 8
BUFFER_NUM = 2


@asc.jit
def vadd_manual_sync(x: asc.GlobalAddress, y: asc.GlobalAddress, z: asc.GlobalAddress, block_length: int):
    """Double-buffered add with hand-placed flags, one slice of the data per block."""
    offset = asc.get_block_idx() * block_length
    x_gm = asc.GlobalTensor()
    y_gm = asc.GlobalTensor()
    z_gm = asc.GlobalTensor()
    x_gm.set_global_buffer(x + offset, block_length)
    y_gm.set_global_buffer(y + offset, block_length)
    z_gm.set_global_buffer(z + offset, block_length)
    tile = block_length // TILE_NUM // BUFFER_NUM
    size = tile * BUFFER_NUM * x.dtype.sizeof()
    x_ub = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, tile * BUFFER_NUM)
    y_ub = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, size, tile * BUFFER_NUM)
    z_ub = asc.LocalTensor(x.dtype, asc.TPosition.VECOUT, 2 * size, tile * BUFFER_NUM)
    for i in range(TILE_NUM * BUFFER_NUM):
        b = i % BUFFER_NUM
        asc.data_copy(x_ub[b * tile :], x_gm[i * tile :], tile)
        asc.data_copy(y_ub[b * tile :], y_gm[i * tile :], tile)
        asc.set_flag(asc.HardEvent.MTE2_V, b)
        asc.wait_flag(asc.HardEvent.MTE2_V, b)
        asc.add(z_ub[b * tile :], x_ub[b * tile :], y_ub[b * tile :], tile)
        asc.set_flag(asc.HardEvent.V_MTE3, b)
        asc.wait_flag(asc.HardEvent.V_MTE3, b)
        asc.data_copy(z_gm[i * tile :], z_ub[b * tile :], tile)
        asc.set_flag(asc.HardEvent.MTE3_MTE2, b)
        asc.wait_flag(asc.HardEvent.MTE3_MTE2, b)
