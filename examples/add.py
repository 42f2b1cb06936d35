"""Add Hello World: z = x + y on the Model simulator (or an NPU), manual sync.

    python examples/add.py -r Model -v Ascend910B1

Each of USE_CORE_NUM blocks adds its own slice of the vectors, moving
TILE_NUM * BUFFER_NUM tiles through the Unified Buffer with double buffering,
and orders its pipes (MTE2 copy-in, V compute, MTE3 copy-out) with flags.
"""

import numpy as np

import asc
import asc.lib.runtime as rt

from common import parse_args

try:
    import torch
except ModuleNotFoundError:  # numpy arrays work just as well
    torch = None

USE_CORE_NUM = 8
BUFFER_NUM = 2  # 1 or 2
TILE_NUM = 8


@asc.jit
def vadd_kernel(x: asc.GlobalAddress, y: asc.GlobalAddress, z: asc.GlobalAddress, block_length: int):
    offset = asc.get_block_idx() * block_length
    x_gm = asc.GlobalTensor()
    y_gm = asc.GlobalTensor()
    z_gm = asc.GlobalTensor()
    x_gm.set_global_buffer(x + offset, block_length)
    y_gm.set_global_buffer(y + offset, block_length)
    z_gm.set_global_buffer(z + offset, block_length)

    tile_length = block_length // TILE_NUM // BUFFER_NUM
    data_type = x.dtype
    buffer_size = tile_length * BUFFER_NUM * data_type.sizeof()

    # Byte addresses in the Unified Buffer: x tiles, then y tiles, then z tiles.
    x_local = asc.LocalTensor(data_type, asc.TPosition.VECIN, 0, tile_length * BUFFER_NUM)
    y_local = asc.LocalTensor(data_type, asc.TPosition.VECIN, buffer_size, tile_length * BUFFER_NUM)
    z_local = asc.LocalTensor(data_type, asc.TPosition.VECOUT, 2 * buffer_size, tile_length * BUFFER_NUM)

    for i in range(TILE_NUM * BUFFER_NUM):
        buf_id = i % BUFFER_NUM
        asc.data_copy(x_local[buf_id * tile_length :], x_gm[i * tile_length :], tile_length)
        asc.data_copy(y_local[buf_id * tile_length :], y_gm[i * tile_length :], tile_length)
        asc.set_flag(asc.HardEvent.MTE2_V, buf_id)  # copy-in done -> vector may read
        asc.wait_flag(asc.HardEvent.MTE2_V, buf_id)
        asc.add(z_local[buf_id * tile_length :], x_local[buf_id * tile_length :], y_local[buf_id * tile_length :],
                tile_length)  # fmt: skip
        asc.set_flag(asc.HardEvent.V_MTE3, buf_id)  # result ready -> copy-out may read
        asc.wait_flag(asc.HardEvent.V_MTE3, buf_id)
        asc.data_copy(z_gm[i * tile_length :], z_local[buf_id * tile_length :], tile_length)
        asc.set_flag(asc.HardEvent.MTE3_MTE2, buf_id)  # copy-out done -> buffers may be reused
        asc.wait_flag(asc.HardEvent.MTE3_MTE2, buf_id)


def vadd_launch(x, y):
    """z = x + y for numpy arrays or torch tensors of 8 * TILE_NUM * BUFFER_NUM * k elements."""
    z = x.new_zeros(x.shape) if hasattr(x, "new_zeros") else np.zeros_like(x)
    block_length = x.numel() // USE_CORE_NUM if hasattr(x, "numel") else x.size // USE_CORE_NUM
    vadd_kernel[USE_CORE_NUM, rt.current_stream()](x, y, z, block_length)
    return z


def main() -> None:
    args = parse_args(__doc__)
    size = 8 * 2048
    if torch is not None:
        x, y = torch.rand(size, dtype=torch.float32), torch.rand(size, dtype=torch.float32)
    else:
        rng = np.random.default_rng()
        x, y = rng.random(size, dtype=np.float32), rng.random(size, dtype=np.float32)
    z = vadd_launch(x, y)
    x, y, z = (np.asarray(v) for v in (x, y, z))
    if not np.array_equal(z, x + y):
        raise SystemExit("[FAIL] Add Hello World: z != x + y")
    print(f"[PASS] Add Hello World on {args.r}/{rt.current_platform()}: {size} float32 on {USE_CORE_NUM} cores")
    print(f"  x[0] = {x[0]:.6f}, y[0] = {y[0]:.6f}, z[0] = {z[0]:.6f}")


if __name__ == "__main__":
    main()
