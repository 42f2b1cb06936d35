"""A matmul's result handed from the cube core to the vector cores in tile kernels (Ascend 950's L0C -> UB),
against numpy: asc2.copy(acc, location=UB) / asctile.copy(..., location="UB", distrib=...) split one tile program
into a mix kernel's cube part and vector part (src/passes/split_cube_vector.cpp, asc2/handover.py). Cases: one
hand-over and vector work after it; a float16 / bfloat16 conversion and ReLU on the way; hand-overs in a loop
(the cube core writes the buffer again while the vector cores compute on their copy); cv_ratio=2 with each
DistribMode (halves by M and by N, the whole tile to one sub-block, to both); several blocks; the split's
structure in the IR; and the errors, each naming the user's line."""

import ml_dtypes
import numpy as np
import pytest

import asc
import asc.experimental.asctile as asctile
import asc.lib.runtime as rt
import asc.runtime.config as config
import asc2
from asc._ffi import ffi, lib
from asc.errors import CodegenError
from asc.runtime.config import KernelType

BF16 = ml_dtypes.bfloat16
L0A, L0B, UB = asc2.TileLocation.L0A, asc2.TileLocation.L0B, asc2.TileLocation.UB


@pytest.fixture(autouse=True)
def ascend_950():
    config.set_platform(config.Backend.Model, config.Platform.Ascend950PR_9599)
    yield
    config.set_platform(config.Backend.Model, config.Platform.Ascend910B1)


def operands(rng, m, k, n, groups=1):
    a = rng.uniform(-1, 1, (groups, m, k)).astype(np.float16)
    b = rng.uniform(-1, 1, (k, n)).astype(np.float16)
    return a, b, a.astype(np.float32) @ b.astype(np.float32)


@asc2.jit
def scaled_product(a_ptr: asc.GlobalAddress, b_ptr: asc.GlobalAddress, c_ptr: asc.GlobalAddress,
                   m: asc.ConstExpr[int], k: asc.ConstExpr[int], n: asc.ConstExpr[int], out: asc.ConstExpr[int],
                   relu: asc.ConstExpr[bool]):  # fmt: skip
    """c[block] = (relu?)(A[block] B) converted to c's dtype, * 2 + 1 on the vector cores."""
    i = asc2.block_idx()
    a = asc2.load(asc2.tensor(a_ptr, [m * asc2.block_num(), k]), [m, k], offsets=[i * m, 0], location=L0A)
    b = asc2.load(asc2.tensor(b_ptr, [k, n]), [k, n], offsets=[0, 0], location=L0B)
    c = asc2.tensor(c_ptr, [m * asc2.block_num(), n])
    acc = asc2.matmul(a, b)
    if relu:
        acc = asc2.relu(acc)
    if out != 0:
        acc = acc.to(c.dtype)
    u = asc2.copy(acc, location=UB)
    asc2.store(u * 2 + 1, c, offsets=[i * m, 0])


@pytest.mark.parametrize("m,k,n", [(32, 32, 64), (16, 64, 32), (48, 32, 96)])
def test_the_vector_cores_compute_on_the_cube_cores_product(m, k, n, rng):
    a, b, want = operands(rng, m, k, n, groups=2)
    c = np.zeros((2 * m, n), np.float32)
    scaled_product[2, rt.current_stream()](a.reshape(-1, k), b, c, m, k, n, 0, False)
    np.testing.assert_allclose(c, want.reshape(-1, n) * 2 + 1, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("dtype", [np.float16, BF16], ids=["float16", "bfloat16"])
def test_the_fixpipe_converts_and_applies_relu_on_the_way(dtype, rng):
    m, k, n = 32, 32, 64
    a, b, want = operands(rng, m, k, n)
    c = np.zeros((m, n), dtype)
    scaled_product[1, rt.current_stream()](a[0], b, c, m, k, n, 1, True)
    rounded = np.maximum(want[0], 0).astype(dtype).astype(np.float32)  # the fixpipe's rounding, then the vector's
    np.testing.assert_allclose(c.astype(np.float32), (rounded * 2 + 1).astype(dtype).astype(np.float32), rtol=1e-2)
    assert (c.astype(np.float32) >= 1 - 1e-3).all()  # ReLU'd before * 2 + 1


@asc2.jit
def column_blocks(
    a_ptr: asc.GlobalAddress,
    b_ptr: asc.GlobalAddress,
    c_ptr: asc.GlobalAddress,
    m: asc.ConstExpr[int],
    k: asc.ConstExpr[int],
    n: asc.ConstExpr[int],
    tn: asc.ConstExpr[int],
):
    """c = exp(A B) - 1, one hand-over per tn columns of B in a loop."""
    a = asc2.load(asc2.tensor(a_ptr, [m, k]), [m, k], offsets=[0, 0], location=L0A)
    bt, c = asc2.tensor(b_ptr, [k, n]), asc2.tensor(c_ptr, [m, n])
    for j in asc2.range(n // tn):
        b = asc2.load(bt, [k, tn], offsets=[0, j * tn], location=L0B)
        u = asc2.copy(asc2.matmul(a, b), location=UB)
        asc2.store(asc2.exp(u) - 1.0, c, offsets=[0, j * tn])


def test_hand_overs_in_a_loop_reuse_the_buffer_in_order(rng):
    m, k, n, tn = 32, 32, 256, 32
    a, b, want = operands(rng, m, k, n)
    c = np.zeros((m, n), np.float32)
    column_blocks[1, rt.current_stream()](a[0], b, c, m, k, n, tn)
    np.testing.assert_allclose(c, np.exp(want[0]) - 1, rtol=1e-5, atol=1e-5)


@asctile.jit(cv_ratio=2)
def distributed(a_ptr: asctile.GlobalAddress, b_ptr: asctile.GlobalAddress, c_ptr: asctile.GlobalAddress,
                m: asctile.ConstExpr[int], k: asctile.ConstExpr[int], n: asctile.ConstExpr[int],
                mode: asctile.ConstExpr[int]):  # fmt: skip
    """c[block, sub-block] = what sub-block s received of A[block] B, + s + 1 (mode: a DistribMode, -1 None)."""
    i, s = asctile.block_idx(), asctile.sub_block_idx()
    a = asctile.copy_in(asctile.global_tensor(a_ptr, [m * asctile.block_num(), k]), [i * m, 0], [m, k],
                        asctile.TensorLocation.L0A)  # fmt: skip
    b = asctile.copy_in(asctile.global_tensor(b_ptr, [k, n]), [0, 0], [k, n], asctile.TensorLocation.L0B)
    c = asctile.global_tensor(c_ptr, [2 * m * asctile.block_num(), n])
    r = asctile.matmul(a, b)
    if mode == -1:
        u = asctile.copy(r, location="UB")
    else:
        u = asctile.copy(r, location="UB", distrib=asctile.DistribMode(mode))
    if mode in (0, 1):  # only sub-block `mode` received a tile
        if s == mode:
            asctile.copy_out(u + (s + 1.0), c, [(2 * i + s) * m, 0])
    else:
        asctile.copy_out(u + (s + 1.0), c, [(2 * i + s) * m, 0], real_shape=[u.shape[0], u.shape[1]])


@pytest.mark.parametrize("mode", [-1, 0, 1, 2, 3], ids=["whole_to_both", "FullVec0", "FullVec1", "SplitByM",
                                                        "SplitByN"])  # fmt: skip
def test_two_vector_sub_blocks_receive_what_distrib_says(mode, rng):
    m, k, n, blocks = 32, 32, 64, 2
    a, b, want = operands(rng, m, k, n, groups=blocks)
    c = np.full((blocks, 2, m, n), -9, np.float32)
    distributed[blocks, rt.current_stream()](a.reshape(-1, k), b, c.reshape(-1, n), m, k, n, mode)
    for g in range(blocks):
        for s in range(2):
            if mode in (0, 1) and s != mode:
                np.testing.assert_array_equal(c[g, s], -9)  # the other sub-block received nothing, wrote nothing
                continue
            share = {2: want[g][s * m // 2 : (s + 1) * m // 2], 3: want[g][:, s * n // 2 : (s + 1) * n // 2]}
            got = share.get(mode, want[g])
            rows, cols = got.shape
            np.testing.assert_allclose(c[g, s][:rows, :cols], got + s + 1, rtol=1e-5, atol=1e-5)


@asctile.jit(cv_ratio=2)
def careless(a_ptr: asctile.GlobalAddress, b_ptr: asctile.GlobalAddress, c_ptr: asctile.GlobalAddress):
    """FullVec0, then both sub-blocks compute on their tile: sub-block 1's was never written."""
    a = asctile.copy_in(asctile.global_tensor(a_ptr, [16, 16]), [0, 0], [16, 16], asctile.TensorLocation.L0A)
    b = asctile.copy_in(asctile.global_tensor(b_ptr, [16, 32]), [0, 0], [16, 32], asctile.TensorLocation.L0B)
    u = asctile.copy(asctile.matmul(a, b), location="UB", distrib=asctile.DistribMode.FullVec0)
    asctile.copy_out(u * 2.0, asctile.global_tensor(c_ptr, [32, 32]), [16 * asctile.sub_block_idx(), 0])


def test_a_sub_block_reading_a_tile_it_did_not_receive_is_reported():
    a, b, c = np.ones((16, 16), np.float16), np.ones((16, 32), np.float16), np.zeros((32, 32), np.float32)
    with pytest.raises(asc.errors.UninitializedReadError, match="AIV 1: .*muls at .*test_tile_handover.py"):
        careless[1, rt.current_stream()](a, b, c)


def test_the_kernel_is_split_into_a_cube_part_and_a_vector_part(rng):
    m, k, n = 32, 32, 64
    a, b, _ = operands(rng, m, k, n)
    c = np.zeros((m, n), np.float32)
    ir = scaled_product.ir(a[0], b, c, m, k, n, 0, False)
    cube, vector = ir.split("} else {")
    assert "ascend_is_aic" in cube and "mmad" in cube and "fixpipe.ub" in cube
    assert "muls" not in cube and "data_copy_pad.local_to_gm" not in cube
    assert "muls" in vector and "data_copy_pad.local_to_gm" in vector
    assert "mmad" not in vector and "fixpipe.ub" not in vector
    # the vector part gives the "buffer free" flag its first credit; the cube part takes the last at its end
    assert vector.split("cross_core_wait_flag")[0].count("cross_core_set_flag") == 1
    assert cube.rstrip().splitlines()[-1].lstrip().startswith("cross_core_wait_flag")
    kernel = scaled_product.compile(a[0], b, c, m, k, n, 0, False)
    kernel_type = ffi.new("int64_t*")
    assert lib.asc_kernel_option(kernel.handle, b"kernel_type", 11, kernel_type) == lib.ASC_OK
    assert kernel_type[0] == KernelType.MIX_AIC_1_1.value


@asc2.jit
def crossing(a_ptr: asc.GlobalAddress, b_ptr: asc.GlobalAddress, c_ptr: asc.GlobalAddress, z: asc.float32,
             branch: asc.ConstExpr[bool]):  # fmt: skip
    """A scalar the vector cores compute (asc2.exp of a scalar runs on a one-element UB tile) reaching the cube."""
    a = asc2.load(asc2.tensor(a_ptr, [16, 16]), [16, 16], offsets=[0, 0], location=L0A)
    b = asc2.load(asc2.tensor(b_ptr, [16, 32]), [16, 32], offsets=[0, 0], location=L0B)
    u = asc2.copy(asc2.matmul(a, b), location=UB)
    asc2.store(u, asc2.tensor(c_ptr, [16, 32]), offsets=[0, 0])
    e = asc2.exp(z)
    if branch:
        if e > 0.5:
            asc2.store(asc2.matmul(a, b), asc2.tensor(c_ptr, [16, 32]), offsets=[0, 0])
    else:
        b2 = asc2.load(asc2.tensor(b_ptr, [16, 32]), [16, 48], offsets=[0, 0], location=L0B, pad_value=e)
        asc2.store(asc2.matmul(a, b2), asc2.tensor(c_ptr, [16, 32]), offsets=[0, 0])


@asc2.jit
def copy_with(a_ptr: asc.GlobalAddress, b_ptr: asc.GlobalAddress, c_ptr: asc.GlobalAddress,
              distrib: asc.ConstExpr[int], off: asc.ConstExpr[int]):  # fmt: skip
    a = asc2.load(asc2.tensor(a_ptr, [16, 16]), [16, 16], offsets=[0, 0], location=L0A)
    b = asc2.load(asc2.tensor(b_ptr, [16, 32]), [16, 32], offsets=[0, 0], location=L0B)
    acc = asc2.matmul(a, b)
    u = asc2.copy(acc, [16, 16], offsets=[0, off], location=UB, distrib=None if distrib < 0 else distrib)
    asc2.store(u, asc2.tensor(c_ptr, [16, 16]), offsets=[0, 0])


@pytest.mark.parametrize("case,match", [
    ("atlas_a2", "Ascend910B1 has none: store the tile to GM"),
    ("split_needs_two", "distrib=SplitByM needs two vector sub-blocks per cube core: compile with cv_ratio=2"),
    ("unaligned", "whole 16 x 16 fractals, got \\[0, 8\\]"),
    ("crossing", "uses values of both the cube core's part and the vector cores' part"),
    ("crossing_branch", "its condition or bounds come from the vector cores' part of the kernel, but it holds "
                        "operations of the other part"),
])  # fmt: skip
def test_errors(case, match):
    a, b, c = np.zeros((16, 16), np.float16), np.zeros((16, 32), np.float16), np.zeros((16, 32), np.float32)
    if case == "atlas_a2":
        config.set_platform(config.Backend.Model, config.Platform.Ascend910B1)
    with pytest.raises(CodegenError, match=match) as info:
        if case.startswith("crossing"):
            crossing[1, rt.current_stream()](a, b, c, 0.0, case == "crossing_branch")
        else:
            args = {"atlas_a2": (-1, 0), "split_needs_two": (2, 0), "unaligned": (-1, 8)}[case]
            copy_with[1, rt.current_stream()](a, b, c[:, :16].copy(), *args)
    assert "test_tile_handover.py" in str(info.value)
