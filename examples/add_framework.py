"""Add with the framework: TPipe + TQue hand buffers between the pipes, so
the kernel has no set_flag/wait_flag of its own.

    python examples/add_framework.py -r Model -v Ascend910B1 [--length N]

copy_in fills a VECIN buffer on MTE2 and enqueues it; compute dequeues both
inputs on V, writes a VECOUT buffer and enqueues it; copy_out dequeues it on
MTE3. With BUFFER_NUM = 2 each queue rotates two buffers (double buffering).
On the Model it prints the estimate beside the physical bound for the same
work: the bytes through HBM, and through the MTE2 engines of the cores used.
"""

import argparse

import numpy as np

import asc
import asc.lib.runtime as rt

from common import parse_args

USE_CORE_NUM = 8
BUFFER_NUM = 2
TILE_NUM = 8


@asc.jit
def copy_in(i: int, x_gm: asc.GlobalTensor, y_gm: asc.GlobalTensor, in_x: asc.TQue, in_y: asc.TQue, tile: int):
    x_local = in_x.alloc_tensor(x_gm.dtype)
    y_local = in_y.alloc_tensor(y_gm.dtype)
    asc.data_copy(x_local, x_gm[i * tile :], tile)
    asc.data_copy(y_local, y_gm[i * tile :], tile)
    in_x.enque(x_local)
    in_y.enque(y_local)


@asc.jit
def compute(dtype: asc.DataType, in_x: asc.TQue, in_y: asc.TQue, out_z: asc.TQue, tile: int):
    x_local = in_x.deque(dtype)
    y_local = in_y.deque(dtype)
    z_local = out_z.alloc_tensor(dtype)
    asc.add(z_local, x_local, y_local, tile)
    out_z.enque(z_local)
    in_x.free_tensor(x_local)
    in_y.free_tensor(y_local)


@asc.jit
def copy_out(i: int, z_gm: asc.GlobalTensor, out_z: asc.TQue, tile: int):
    z_local = out_z.deque(z_gm.dtype)
    asc.data_copy(z_gm[i * tile :], z_local, tile)
    out_z.free_tensor(z_local)


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
    pipe = asc.TPipe()
    in_x = asc.TQue(asc.TPosition.VECIN, BUFFER_NUM)
    in_y = asc.TQue(asc.TPosition.VECIN, BUFFER_NUM)
    out_z = asc.TQue(asc.TPosition.VECOUT, BUFFER_NUM)
    pipe.init_buffer(in_x, BUFFER_NUM, tile * x.dtype.sizeof())
    pipe.init_buffer(in_y, BUFFER_NUM, tile * y.dtype.sizeof())
    pipe.init_buffer(out_z, BUFFER_NUM, tile * z.dtype.sizeof())
    for i in range(TILE_NUM * BUFFER_NUM):
        copy_in(i, x_gm, y_gm, in_x, in_y, tile)
        compute(x.dtype, in_x, in_y, out_z, tile)
        copy_out(i, z_gm, out_z, tile)


def vadd(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    z = np.zeros_like(x)
    block_length = x.size // USE_CORE_NUM
    vadd_kernel[USE_CORE_NUM, rt.current_stream()](x, y, z, block_length, block_length // TILE_NUM // BUFFER_NUM)
    return z


def print_against_the_bound(x: np.ndarray) -> None:
    """The estimate beside what the chip allows: 3 arrays through HBM, 2 of them in through each core's MTE2."""
    stats, chip = rt.last_launch_stats(), rt.platform_figures()
    hbm = chip.hbm_bound_us(3 * x.nbytes)
    mte2 = 2 * x.nbytes / USE_CORE_NUM / chip.mte_bytes_per_cycle / (chip.clock_ghz * 1e3)
    bound = max(hbm, mte2)
    print(
        f"Model estimate {stats.duration_us:.1f} us; physical bound {bound:.1f} us (HBM {hbm:.1f} us, the MTE2 of "
        f"{USE_CORE_NUM} cores {mte2:.1f} us): the kernel runs at {bound / stats.duration_us:.0%} of the bound"
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--length", type=int, default=USE_CORE_NUM * TILE_NUM * BUFFER_NUM * 4096,
                        help="elements per array (a multiple of 128)")  # fmt: skip
    args = parse_args(__doc__, parser)
    rng = np.random.default_rng()
    x = rng.random(args.length, dtype=np.float32)
    y = rng.random(args.length, dtype=np.float32)
    if not np.array_equal(vadd(x, y), x + y):
        raise SystemExit("[FAIL] add_framework: z != x + y")
    print(f"[PASS] add_framework on {args.r}/{rt.current_platform()}: TQue depth {BUFFER_NUM}, {USE_CORE_NUM} cores")
    if rt.is_model():
        print_against_the_bound(x)


if __name__ == "__main__":
    main()
