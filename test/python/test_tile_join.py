"""The vector cores' tiles handed to their cube core in tile kernels (Ascend 950's UB -> L1), against numpy:
asctile.copy(part, location="L1", distrib=JoinByM / JoinByN / FullVec0 / FullVec1) and asc2.copy(tile,
location=L1) split one tile program into a mix kernel's vector part (which computes a matmul operand) and cube
part (which multiplies it): asc2/join.py, src/passes/split_cube_vector.cpp. Cases: each DistribMode on two
sub-blocks, as the left and as the right operand; shapes whose rows do not fill the last slab of 16 (the rest
is zeros); float32 and bfloat16; a loop of joins through one L1 buffer (the cube core hands it back at the end of
each iteration); two join sites in one kernel; the split's structure in the IR; several blocks; and the errors."""

import ml_dtypes
import numpy as np
import pytest

import asc
import asc.experimental.asctile as asctile
import asc.lib.runtime as rt
import asc.runtime.config as config
import asc2
from asc.errors import CodegenError

BF16 = ml_dtypes.bfloat16
D = asctile.DistribMode


@pytest.fixture(autouse=True)
def ascend_950():
    config.set_platform(config.Backend.Model, config.Platform.Ascend950PR_9599)
    yield
    config.set_platform(config.Backend.Model, config.Platform.Ascend910B1)


@asctile.jit(cv_ratio=2)
def joined_left(x_ptr, w_ptr, out_ptr, M: asctile.ConstExpr[int], K: asctile.ConstExpr[int],
                N: asctile.ConstExpr[int], MODE: asctile.ConstExpr[int]):  # fmt: skip
    """out[block] = X' W: the vector sub-blocks compute X' (X scaled by 2 + sub-block index, on the vector
    unit) and join it in L1 as MODE says; the cube core multiplies. X' for JoinByM: rows [s M/2, (s+1) M/2) from
    sub-block s; JoinByN: columns [s K/2, (s+1) K/2); FullVec0/1: all of it from one sub-block."""
    b = asctile.block_idx()
    x = asctile.global_tensor(x_ptr, [M * asctile.block_num(), K])
    w = asctile.global_tensor(w_ptr, [K, N])
    out = asctile.global_tensor(out_ptr, [M * asctile.block_num(), N])
    s = asctile.sub_block_idx()
    if MODE == 4:
        part = asctile.copy_in(x, [b * M + s * (M // 2), 0], [M // 2, K])
    elif MODE == 5:
        part = asctile.copy_in(x, [b * M, s * (K // 2)], [M, K // 2])
    else:
        part = asctile.copy_in(x, [b * M, 0], [M, K])
    scaled = part * (asctile.cast(s, asctile.float32) + 2.0)
    full = asctile.copy(scaled, location="L1", distrib=D(MODE))
    wl1 = asctile.copy_in(w, [0, 0], [K, N], asctile.TensorLocation.L1)
    acc = asctile.matmul(asctile.copy(full, location="L0A"), asctile.copy(wl1, location="L0B"))
    asctile.copy_out(acc, out, [b * M, 0])


def left_want(x, w, mode, blocks):
    M = x.shape[0] // blocks
    K = x.shape[1]
    scale = np.zeros_like(x, np.float32)
    for blk in range(blocks):
        rows = slice(blk * M, (blk + 1) * M)
        if mode == 4:
            scale[blk * M : blk * M + M // 2] = 2
            scale[blk * M + M // 2 : (blk + 1) * M] = 3
        elif mode == 5:
            scale[rows, : K // 2] = 2
            scale[rows, K // 2 :] = 3
        else:
            scale[rows] = 2 + mode
    xs = (x.astype(np.float32) * scale).astype(x.dtype).astype(np.float32)
    return xs @ w.astype(np.float32)


@pytest.mark.parametrize("mode", [D.JoinByM, D.JoinByN, D.FullVec0, D.FullVec1])
@pytest.mark.parametrize("m,k,n", [(32, 32, 32), (24, 64, 16)])  # 24: JoinByM's halves straddle a slab
def test_each_mode_joins_the_sub_blocks_tiles(mode, m, k, n, rng):
    x = rng.uniform(-1, 1, (2 * m, k)).astype(np.float16)
    w = rng.uniform(-1, 1, (k, n)).astype(np.float16)
    out = np.zeros((2 * m, n), np.float32)
    joined_left[2](x, w, out, m, k, n, int(mode))
    np.testing.assert_allclose(out, left_want(x, w, int(mode), 2), rtol=1e-3, atol=1e-3)


@asc2.jit(cv_ratio=2)
def joined_right(a_ptr: asc.GlobalAddress, w_ptr: asc.GlobalAddress, out_ptr: asc.GlobalAddress,
                 M: asc.ConstExpr[int], K: asc.ConstExpr[int], N: asc.ConstExpr[int]):  # fmt: skip
    """out = A W': W' = relu(W) joined by N (sub-block s its columns [s N/2, (s+1) N/2)), the right operand."""
    s = asc.get_sub_block_idx()
    w = asc2.load(asc2.tensor(w_ptr, [K, N]), [K, N // 2], offsets=[0, s * (N // 2)])
    wl1 = asc2.copy(asc2.relu(w), location=asc2.TileLocation.L1, distrib=5)
    a = asc2.load(asc2.tensor(a_ptr, [M, K]), [M, K], offsets=[0, 0], location=asc2.TileLocation.L0A)
    acc = asc2.matmul(a, asc2.copy(wl1, location=asc2.TileLocation.L0B))
    asc2.store(acc, asc2.tensor(out_ptr, [M, N]), offsets=[0, 0])


@pytest.mark.parametrize("dtype", [np.float16, BF16, np.float32], ids=["float16", "bfloat16", "float32"])
def test_a_joined_right_operand(dtype, rng):
    M, K, N = 32, 40 if dtype == np.float32 else 48, 64  # float32: 40 rows, the last slab's 8 more zeros
    a = rng.uniform(-1, 1, (M, K)).astype(dtype)
    w = rng.uniform(-1, 1, (K, N)).astype(dtype)
    out = np.zeros((M, N), np.float32)
    joined_right[1, rt.current_stream()](a, w, out, M, K, N)
    want = a.astype(np.float32) @ np.maximum(w.astype(np.float32), 0)
    tol = 2e-2 if dtype == BF16 else 2e-3
    np.testing.assert_allclose(out, want, rtol=tol, atol=tol)


@asc2.jit(cv_ratio=2)
def joined_in_a_loop(x_ptr: asc.GlobalAddress, w_ptr: asc.GlobalAddress, out_ptr: asc.GlobalAddress,
                     M: asc.ConstExpr[int], K: asc.ConstExpr[int], N: asc.ConstExpr[int],
                     STEPS: asc.ConstExpr[int]):  # fmt: skip
    """out[t] = (X[t] + t) W for t < STEPS, one join a step through one L1 buffer (JoinByM)."""
    s = asc.get_sub_block_idx()
    x = asc2.tensor(x_ptr, [STEPS * M, K])
    out = asc2.tensor(out_ptr, [STEPS * M, N])
    wl0 = asc2.load(asc2.tensor(w_ptr, [K, N]), [K, N], offsets=[0, 0], location=asc2.TileLocation.L0B)
    for t in asc2.range(STEPS):
        part = asc2.load(x, [M // 2, K], offsets=[t * M + s * (M // 2), 0])
        shifted = part + t
        xl1 = asc2.copy(shifted, location=asc2.TileLocation.L1, distrib=4)
        acc = asc2.matmul(asc2.copy(xl1, location=asc2.TileLocation.L0A), wl0)
        asc2.store(acc, out, offsets=[t * M, 0])


def test_joins_in_a_loop_hand_the_buffer_back_each_step(rng):
    M, K, N, steps = 32, 32, 32, 6
    x = rng.uniform(-1, 1, (steps * M, K)).astype(np.float16)
    w = rng.uniform(-1, 1, (K, N)).astype(np.float16)
    out = np.zeros((steps * M, N), np.float32)
    joined_in_a_loop[1, rt.current_stream()](x, w, out, M, K, N, steps)
    t = np.repeat(np.arange(steps), M)[:, None].astype(np.float16)
    want = (x + t).astype(np.float32) @ w.astype(np.float32)
    np.testing.assert_allclose(out, want, rtol=1e-3, atol=2e-3)


def test_the_split_gives_each_join_its_flags_and_the_cube_core_hands_back_at_the_loops_end(rng):
    M, K, N = 32, 32, 32
    x, w, out = np.zeros((2 * M, K), np.float16), np.zeros((K, N), np.float16), np.zeros((2 * M, N), np.float32)
    ir = joined_in_a_loop.ir(x, w, out, M, K, N, 2)
    cube, vector = ir.split("} else {")
    assert "data_copy.ub_to_l1.blocks" in vector and "data_copy.ub_to_l1" not in cube
    assert "mmad" in cube and "mmad" not in vector
    # the cube part gives FREE (13) its first credit before its loop; the vector part takes the last at its end
    before_loop = cube.split("for ")[0]
    assert "cross_core_set_flag" in before_loop
    assert [ln for ln in vector.splitlines() if ln.strip() != "}"][-1].lstrip().startswith("cross_core_wait_flag")
    # in the loop the cube core waits FULL (12), multiplies, and sets FREE after its loads, at the body's end
    body = cube.split("for ")[1]
    assert body.index("cross_core_wait_flag") < body.index("mmad") < body.rindex("cross_core_set_flag")


@asctile.jit(cv_ratio=2)
def two_joins(x_ptr, w_ptr, out_ptr, M: asctile.ConstExpr[int], K: asctile.ConstExpr[int],
              N: asctile.ConstExpr[int]):  # fmt: skip
    """out = (2 X) (W + 1): both operands made on the vector cores, X' joined by M, W' by N."""
    s = asctile.sub_block_idx()
    x = asctile.global_tensor(x_ptr, [M, K])
    w = asctile.global_tensor(w_ptr, [K, N])
    out = asctile.global_tensor(out_ptr, [M, N])
    xs = asctile.copy_in(x, [s * (M // 2), 0], [M // 2, K]) * 2.0
    ws = asctile.copy_in(w, [0, s * (N // 2)], [K, N // 2]) + 1.0
    xl1 = asctile.copy(xs, location="L1", distrib=D.JoinByM, shape=[M, K])
    wl1 = asctile.copy(ws, location="L1", distrib=D.JoinByN)
    acc = asctile.matmul(asctile.copy(xl1, location="L0A"), asctile.copy(wl1, location="L0B"))
    asctile.copy_out(acc, out, [0, 0])


def test_two_join_sites_in_one_kernel(rng):
    M, K, N = 32, 48, 64
    x = rng.uniform(-1, 1, (M, K)).astype(np.float16)
    w = rng.uniform(-1, 1, (K, N)).astype(np.float16)
    out = np.zeros((M, N), np.float32)
    two_joins[1](x, w, out, M, K, N)
    want = (x * np.float16(2)).astype(np.float32) @ (w + np.float16(1)).astype(np.float32)
    np.testing.assert_allclose(out, want, rtol=1e-3, atol=2e-3)


@asc2.jit
def join_with(x_ptr: asc.GlobalAddress, out_ptr: asc.GlobalAddress, MODE: asc.ConstExpr[int],
              SHAPE: asc.ConstExpr[int]):  # fmt: skip
    t = asc2.load(asc2.tensor(x_ptr, [32, 32]), [16, 32], offsets=[0, 0])
    l1 = asc2.copy(t, [16, SHAPE], location=asc2.TileLocation.L1, distrib=None if MODE < 0 else MODE)
    w = asc2.load(asc2.tensor(x_ptr, [32, 32]), [32, 16], offsets=[0, 0], location=asc2.TileLocation.L0B)
    asc2.store(asc2.matmul(asc2.copy(l1, location=asc2.TileLocation.L0A), w), asc2.tensor(out_ptr, [16, 16]),
               offsets=[0, 0])  # fmt: skip


@pytest.mark.parametrize("case,match", [
    ("atlas_a2", "Ascend910B1 has none: store the tile to GM .asc2.store. and load it into L1"),
    ("join_needs_two", "distrib=JoinByM needs two vector sub-blocks per cube core: compile with cv_ratio=2"),
    ("part", "a UB -> L1 copy moves the whole tile: no shape or offsets"),
    ("split_mode", "distrib for UB -> L1 is FullVec0, FullVec1, JoinByM or JoinByN, got 2"),
    ("asctile_shape", "joining by axis is only supported for the joined shape \\(64, 32\\), got \\(32, 32\\)"),
])  # fmt: skip
def test_errors(case, match):
    x, out = np.zeros((32, 32), np.float16), np.zeros((16, 16), np.float32)
    with pytest.raises(CodegenError, match=match) as e:
        if case == "atlas_a2":
            config.set_platform(config.Backend.Model, config.Platform.Ascend910B1)
            join_with[1, rt.current_stream()](x, out, -1, 32)
        elif case == "join_needs_two":
            join_with[1, rt.current_stream()](x, out, 4, 32)
        elif case == "part":
            join_with[1, rt.current_stream()](x, out, -1, 16)
        elif case == "split_mode":
            join_with[1, rt.current_stream()](x, out, 2, 32)
        else:
            bad_shape[1](x, out)
    assert "test_tile_join.py" in str(e.value)


@asctile.jit(cv_ratio=2)
def bad_shape(x_ptr, out_ptr):
    x = asctile.global_tensor(x_ptr, [32, 32])
    part = asctile.copy_in(x, [0, 0], [32, 32])
    asctile.copy(part, location="L1", distrib=D.JoinByM, shape=[32, 32])
