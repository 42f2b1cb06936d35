"""Ascend 950's UB -> L1 against numpy: in a mix kernel the vector cores compute an operand in their Unified
Buffers, copy it into their cube core's L1 (data_copy with a count, or DataCopyParams rows laying an ND tile out
Nz on the way), set a mode-2 flag on MTE3, and the cube core waits for it, multiplies and stores the product.
Also: several rounds through the same L1 handed back and forth, a cube core reading L1 without waiting (a race
between the cores), and the errors (Atlas A2, a kernel that is not a mix kernel, a misaligned or too long copy).
Semantics: Ascend C's UBToL1连续数据搬运（DataCopy）.md and the data_copy_ub2l1 sample
(https://github.com/cannmirror/asc-devkit): copy_ubuf_to_cbuf moves 32-byte blocks unchanged."""

import numpy as np
import pytest

import asc
import asc.lib.runtime as rt
import asc.runtime.config as config
from asc.errors import CodegenError, KernelError, OutOfBoundsError, RaceError
from asc.runtime.config import KernelType

FULL = 8  # the vector cores' "L1 holds the operand" flag
FREE = 9  # the cube core's "done with L1" flag


@pytest.fixture(autouse=True)
def ascend_950():
    config.set_platform(config.Backend.Model, config.Platform.Ascend950PR_9599)
    yield
    config.set_platform(config.Backend.Model, config.Platform.Ascend910B1)


@asc.jit
def vector_half(x_gm, a1, M, K, s, halves, scale):
    """Sub-block s's rows of A (ND in GM), times `scale`, into the Nz A1 tensor `a1` (M rows per fractal column):
    each fractal column's rows are one run of 32-byte blocks, so one DataCopyParams per column moves them."""
    rows = M // halves
    n = rows * K
    ub = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, 0, n)
    res = asc.LocalTensor(asc.float16, asc.TPosition.VECOUT, 65536, n)
    asc.pipe_barrier(asc.PipeID.PIPE_ALL)  # the last round's reads of ub and res are done
    asc.data_copy(ub, x_gm[s * n :], n)
    asc.set_flag(asc.HardEvent.MTE2_V, 0)
    asc.wait_flag(asc.HardEvent.MTE2_V, 0)
    asc.muls(res, ub, scale, n)
    asc.set_flag(asc.HardEvent.V_MTE3, 0)
    asc.wait_flag(asc.HardEvent.V_MTE3, 0)
    for j in range(K // 16):  # ND row r's block j -> Nz block j * M + s * rows + r
        asc.data_copy(a1[(j * M + s * rows) * 16 :], res[j * 16 :], asc.DataCopyParams(rows, 1, K // 16 - 1, 0))


@asc.jit
def cube_product(a1, b_gm, out_gm, M, N, K):
    """out = A (Nz in a1) x B (B^T given, N x K, loaded by the cube core) in float32."""
    m1, n1, k1 = M // 16, N // 16, K // 16
    b1 = asc.LocalTensor(asc.float16, asc.TPosition.B1, 131072, n1 * k1 * 256)
    a2 = asc.LocalTensor(asc.float16, asc.TPosition.A2, 0, m1 * k1 * 256)
    b2 = asc.LocalTensor(asc.float16, asc.TPosition.B2, 0, n1 * k1 * 256)
    c1 = asc.LocalTensor(asc.float32, asc.TPosition.CO1, 0, M * N)
    asc.pipe_barrier(asc.PipeID.PIPE_ALL)  # the last round's loads and fixpipe are done
    asc.data_copy(b1, b_gm, asc.Nd2NzParams(1, N, K, 0, K, N, 1, 0))
    asc.set_flag(asc.HardEvent.MTE2_MTE1, 0)
    asc.wait_flag(asc.HardEvent.MTE2_MTE1, 0)
    for i in range(m1):  # Nz -> Zz
        asc.load_data(a2[i * k1 * 256 :], a1[i * 256 :], asc.LoadData2DParams(0, k1, m1, 0, 0, False, 0))
    for kk in range(k1):  # B^T in Nz is already Zn
        asc.load_data(b2[kk * n1 * 256 :], b1, asc.LoadData2DParams(kk * n1, n1, 1, 0, 0, False, 0))
    asc.set_flag(asc.HardEvent.MTE1_M, 0)
    asc.wait_flag(asc.HardEvent.MTE1_M, 0)
    asc.mmad(c1, a2, b2, asc.MmadParams(M, N, K, cmatrix_init_val=True))
    asc.set_flag(asc.HardEvent.M_FIX, 0)
    asc.wait_flag(asc.HardEvent.M_FIX, 0)
    asc.fixpipe(out_gm, c1, asc.FixpipeParamsV220(N, M, M, N, False), asc.FixpipeConfig.cfg_row_major)


@asc.jit(kernel_type=KernelType.MIX_AIC_1_2)
def vector_to_cube(x: asc.GlobalAddress, b_t: asc.GlobalAddress, out: asc.GlobalAddress,
                   M: asc.ConstExpr[int], N: asc.ConstExpr[int], K: asc.ConstExpr[int],
                   ROUNDS: asc.ConstExpr[int], WAIT: asc.ConstExpr[bool]):  # fmt: skip
    """out[round] = (A (round + 1)) B: each round the two vector cores scale their halves of A's rows into the
    cube core's L1, the cube core multiplies; FREE hands L1 back between rounds. Without WAIT the cube core does
    not wait for the copies."""
    x_gm, b_gm, out_gm = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
    x_gm.set_global_buffer(x)
    b_gm.set_global_buffer(b_t)
    out_gm.set_global_buffer(out)
    a1 = asc.LocalTensor(asc.float16, asc.TPosition.A1, 0, M * K)
    if asc.ascend_is_aiv():
        for r in range(ROUNDS):
            if r > 0:
                asc.cross_core_wait_flag(FREE, 2, asc.PipeID.PIPE_MTE3)
            vector_half(x_gm, a1, M, K, asc.get_sub_block_idx(), 2, r + 1.0)
            asc.cross_core_set_flag(FULL, 2, asc.PipeID.PIPE_MTE3)
    else:
        for r in range(ROUNDS):
            if WAIT:
                asc.cross_core_wait_flag(FULL, 2, asc.PipeID.PIPE_MTE1)
            cube_product(a1, b_gm, out_gm[r * M * N :], M, N, K)
            if r + 1 < ROUNDS:
                asc.cross_core_set_flag(FREE, 2, asc.PipeID.PIPE_MTE1)


@asc.jit(kernel_type=KernelType.MIX_AIC_1_1)
def whole_operand(x: asc.GlobalAddress, b_t: asc.GlobalAddress, out: asc.GlobalAddress,
                  M: asc.ConstExpr[int], N: asc.ConstExpr[int], K: asc.ConstExpr[int],
                  COUNT: asc.ConstExpr[int], L1_AT: asc.ConstExpr[int]):  # fmt: skip
    """The sample's first scenario: A given Nz in GM, copied GM -> UB -> L1 unchanged by the one vector core with
    data_copy(l1, ub, COUNT) at L1 address L1_AT; the cube core multiplies it."""
    x_gm, b_gm, out_gm = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
    x_gm.set_global_buffer(x)
    b_gm.set_global_buffer(b_t)
    out_gm.set_global_buffer(out)
    a1 = asc.LocalTensor(asc.float16, asc.TPosition.A1, L1_AT, M * K)
    if asc.ascend_is_aiv():
        ub = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, 0, M * K)
        asc.data_copy(ub, x_gm, M * K)
        asc.set_flag(asc.HardEvent.MTE2_MTE3, 0)
        asc.wait_flag(asc.HardEvent.MTE2_MTE3, 0)
        asc.data_copy(a1, ub, COUNT)
        asc.cross_core_set_flag(FULL, 2, asc.PipeID.PIPE_MTE3)
    else:
        asc.cross_core_wait_flag(FULL, 2, asc.PipeID.PIPE_MTE1)
        cube_product(a1, b_gm, out_gm, M, N, K)


def operands(M, N, K, seed=0):
    rng = np.random.default_rng(seed)
    a = rng.uniform(-1, 1, (M, K)).astype(np.float16)
    b = rng.uniform(-1, 1, (K, N)).astype(np.float16)
    return a, b


def nz(a):
    """M x K as Nz: K/16 fractal columns of M rows of 16."""
    M, K = a.shape
    return np.ascontiguousarray(a.reshape(M, K // 16, 16).transpose(1, 0, 2)).reshape(-1)


def product(a, b):
    return a.astype(np.float32) @ b.astype(np.float32)


@pytest.mark.parametrize("rounds", [1, 3])
def test_both_vector_cores_fill_l1_in_nz(rounds):
    M, N, K = 32, 32, 48
    a, b = operands(M, N, K)
    out = np.zeros((rounds, M, N), np.float32)
    vector_to_cube[1, rt.current_stream()](a, np.ascontiguousarray(b.T), out, M, N, K, rounds, True)
    for r in range(rounds):
        want = product((a * np.float16(r + 1)).astype(np.float16), b)
        np.testing.assert_allclose(out[r], want, rtol=1e-3, atol=1e-3)


def test_count_form_moves_the_bytes_unchanged():
    M, N, K = 32, 16, 32
    a, b = operands(M, N, K, seed=3)
    out = np.zeros((M, N), np.float32)
    whole_operand[1, rt.current_stream()](nz(a), np.ascontiguousarray(b.T), out, M, N, K, M * K, 4096)
    np.testing.assert_allclose(out, product(a, b), rtol=1e-3, atol=1e-3)


def test_a_cube_core_that_does_not_wait_races():
    M, N, K = 32, 32, 32
    a, b = operands(M, N, K)
    out = np.zeros((1, M, N), np.float32)
    with pytest.raises(RaceError, match="UB -> L1 copy") as e:
        vector_to_cube[1, rt.current_stream()](a, np.ascontiguousarray(b.T), out, M, N, K, 1, False)
    assert "test_ub_to_l1.py" in str(e.value)


def test_a_copy_past_the_tensor_is_refused():
    M, N, K = 32, 16, 32
    a, b = operands(M, N, K)
    out = np.zeros((M, N), np.float32)
    with pytest.raises(
        OutOfBoundsError,
        match="UB -> L1 writes 2080 bytes from L1 address 4096, but the destination tensor has 2048 bytes",
    ):
        whole_operand[1, rt.current_stream()](nz(a), np.ascontiguousarray(b.T), out, M, N, K, M * K + 16, 4096)


def test_a_misaligned_l1_address_is_refused():
    M, N, K = 32, 16, 32
    a, b = operands(M, N, K)
    with pytest.raises(CodegenError, match="address 4112 is not 32-byte aligned") as e:
        whole_operand[1, rt.current_stream()](nz(a), np.ascontiguousarray(b.T), np.zeros((M, N), np.float32),
                                              M, N, K, M * K, 4112)  # fmt: skip
    assert "test_ub_to_l1.py" in str(e.value)


def test_atlas_a2_has_no_such_path():
    config.set_platform(config.Backend.Model, config.Platform.Ascend910B1)
    M, N, K = 32, 16, 32
    a, b = operands(M, N, K)
    with pytest.raises(KernelError, match="no hardware path from the Unified Buffer to L1"):
        whole_operand[1, rt.current_stream()](nz(a), np.ascontiguousarray(b.T), np.zeros((M, N), np.float32),
                                              M, N, K, M * K, 0)  # fmt: skip


@asc.jit(kernel_type=KernelType.AIV_ONLY)
def vector_only(x: asc.GlobalAddress, n: asc.ConstExpr[int]):
    x_gm = asc.GlobalTensor()
    x_gm.set_global_buffer(x)
    ub = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, 0, n)
    a1 = asc.LocalTensor(asc.float16, asc.TPosition.A1, 0, n)
    asc.data_copy(ub, x_gm, n)
    asc.set_flag(asc.HardEvent.MTE2_MTE3, 0)
    asc.wait_flag(asc.HardEvent.MTE2_MTE3, 0)
    asc.data_copy(a1, ub, n)


def test_a_vector_only_kernel_has_no_cube_core_to_write():
    with pytest.raises(KernelError, match="needs a mix kernel"):
        vector_only[1, rt.current_stream()](np.zeros(256, np.float16), 256)
