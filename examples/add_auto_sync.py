"""Add with compiler-placed tensors and compiler-inserted synchronisation.

    python examples/add_auto_sync.py -r Model -v Ascend910B1

asc.LocalTensorAuto lets the compiler place each tensor in the Unified Buffer,
and using it turns on insert_sync: every set_flag/wait_flag the kernel needs is
inserted by libasc. `--ir` prints the compiled IR with the inserted flags.
"""

import argparse

import numpy as np

import asc
import asc.lib.runtime as rt

from common import parse_args

USE_CORE_NUM = 8
TILE_NUM = 8


@asc.jit
def vadd_kernel(x: asc.GlobalAddress, y: asc.GlobalAddress, z: asc.GlobalAddress, block_length: int,
                tile: asc.ConstExpr[int]):  # fmt: skip
    offset = asc.get_block_idx() * block_length
    x_gm = asc.GlobalTensor()
    y_gm = asc.GlobalTensor()
    z_gm = asc.GlobalTensor()
    x_gm.set_global_buffer(x + offset, block_length)
    y_gm.set_global_buffer(y + offset, block_length)
    z_gm.set_global_buffer(z + offset, block_length)
    for i in range(TILE_NUM):
        x_local = asc.LocalTensorAuto(x.dtype, tile)
        y_local = asc.LocalTensorAuto(y.dtype, tile)
        z_local = asc.LocalTensorAuto(z.dtype, tile)
        asc.data_copy(x_local, x_gm[i * tile :], tile)
        asc.data_copy(y_local, y_gm[i * tile :], tile)
        asc.add(z_local, x_local, y_local, tile)
        asc.data_copy(z_gm[i * tile :], z_local, tile)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--ir", action="store_true", help="print the compiled IR")
    args = parse_args(__doc__, parser)
    rng = np.random.default_rng()
    x = rng.random(8 * 2048, dtype=np.float32)
    y = rng.random(8 * 2048, dtype=np.float32)
    z = np.zeros_like(x)
    block_length = x.size // USE_CORE_NUM
    launch_args = (x, y, z, block_length, block_length // TILE_NUM)
    if args.ir:
        print(vadd_kernel.ir(*launch_args))
    vadd_kernel[USE_CORE_NUM, rt.current_stream()](*launch_args)
    if not np.array_equal(z, x + y):
        raise SystemExit("[FAIL] add_auto_sync: z != x + y")
    print(f"[PASS] add_auto_sync on {args.r}/{rt.current_platform()}: flags inserted by the compiler")


if __name__ == "__main__":
    main()
