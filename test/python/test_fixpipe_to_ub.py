"""Ascend 950's fixpipe L0C -> UB against numpy: in a MIX_AIC_1_2 kernel the cube core multiplies, its fixpipe
writes the product into its vector cores' Unified Buffers (one of them, or split over both by M or by N,
NZ2ND or NZ2NZ, with quantisation and ReLU), sets a cross-core flag, and each vector core waits, adds its
sub-block index + 1 on the vector unit and copies its share to GM. Also: the one-AIV form of MIX_AIC_1_1, two
rounds through the same UB handed back and forth, a read that does not wait for the fixpipe reported as a race,
and the errors (Atlas A2, an AIC_ONLY kernel, bad parameters). Semantics: Ascend C's L0C到UB数据搬运（Fixpipe）.md
and the fixpipe_l0c2ub sample (https://github.com/cannmirror/asc-devkit)."""

import numpy as np
import pytest

import asc
import asc.lib.runtime as rt
import asc.runtime.config as config
from asc.runtime.config import KernelType

FLAG = 5  # the cube core's "the UB holds the product" flag
BACK = 7  # the vector cores' "done with the UB" flag


@pytest.fixture(autouse=True)
def ascend_950():
    config.set_platform(config.Backend.Model, config.Platform.Ascend950PR_9599)
    yield
    config.set_platform(config.Backend.Model, config.Platform.Ascend910B1)


@asc.jit
def multiply(a_gm, b_gm, c1, M, N, K, init):
    """c1 = (or, without init, +=) A (M x K) x B (B^T given, N x K) in float16 -> float32 L0C; M, N, K multiples
    of 16."""
    m1, n1, k1 = M // 16, N // 16, K // 16
    a1 = asc.LocalTensor(asc.float16, asc.TPosition.A1, 0, m1 * k1 * 256)
    b1 = asc.LocalTensor(asc.float16, asc.TPosition.B1, 65536, n1 * k1 * 256)
    a2 = asc.LocalTensor(asc.float16, asc.TPosition.A2, 0, m1 * k1 * 256)
    b2 = asc.LocalTensor(asc.float16, asc.TPosition.B2, 0, n1 * k1 * 256)
    asc.data_copy(a1, a_gm, asc.Nd2NzParams(1, M, K, 0, K, M, 1, 0))
    asc.data_copy(b1, b_gm, asc.Nd2NzParams(1, N, K, 0, K, N, 1, 0))
    asc.set_flag(asc.HardEvent.MTE2_MTE1, 0)
    asc.wait_flag(asc.HardEvent.MTE2_MTE1, 0)
    for i in range(m1):  # Nz -> Zz
        asc.load_data(a2[i * k1 * 256 :], a1[i * 256 :], asc.LoadData2DParams(0, k1, m1, 0, 0, False, 0))
    for kk in range(k1):  # B^T in Nz is already Zn
        asc.load_data(b2[kk * n1 * 256 :], b1, asc.LoadData2DParams(kk * n1, n1, 1, 0, 0, False, 0))
    asc.set_flag(asc.HardEvent.MTE1_M, 0)
    asc.wait_flag(asc.HardEvent.MTE1_M, 0)
    asc.mmad(c1, a2, b2, asc.MmadParams(M, N, K, cmatrix_init_val=init))
    asc.set_flag(asc.HardEvent.M_FIX, 0)
    asc.wait_flag(asc.HardEvent.M_FIX, 0)


@asc.jit(kernel_type=KernelType.MIX_AIC_1_2)
def cube_to_vector(a: asc.GlobalAddress, b_t: asc.GlobalAddress, out: asc.GlobalAddress,
                   M: asc.ConstExpr[int], N: asc.ConstExpr[int], K: asc.ConstExpr[int], DUAL: asc.ConstExpr[int],
                   SUB: asc.ConstExpr[int], NZ: asc.ConstExpr[bool], QUANT: asc.ConstExpr[int],
                   RELU: asc.ConstExpr[bool]):  # fmt: skip
    """out[2 g + s] = sub-block s's share of group g's C = A[g] B (ND, or Nz with NZ), + s + 1. Shares: DUAL 0,
    all of C to sub-block SUB; 1: rows [s M/2, (s+1) M/2); 2: columns [s N/2, (s+1) N/2)."""
    a_gm, b_gm, out_gm = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
    a_gm.set_global_buffer(a)
    b_gm.set_global_buffer(b_t)
    out_gm.set_global_buffer(out)
    rows = M // 2 if DUAL == 1 else M
    cols = N // 2 if DUAL == 2 else N
    size = rows * cols
    ub = asc.LocalTensor(out.dtype, asc.TPosition.VECIN, 0, size)
    if asc.ascend_is_aic():
        c1 = asc.LocalTensor(asc.float32, asc.TPosition.CO1, 0, M * N)
        multiply(a_gm[asc.get_block_idx() * M * K :], b_gm, c1, M, N, K, True)
        stride = rows * 16 if NZ else cols  # NZ2NZ: between fractal columns; NZ2ND: the row length, per vector core
        params = asc.FixpipeParamsArch3510(N, M, M, stride, quant_pre=QUANT, relu_en=RELU, dual_dst_ctl=DUAL,
                                           sub_block_id=SUB)  # fmt: skip
        asc.fixpipe(ub, c1, params, asc.FixpipeConfig.cfg_nz_ub if NZ else asc.FixpipeConfig.cfg_row_major_ub)
        asc.cross_core_set_flag(FLAG, 2, asc.PipeID.PIPE_FIX)
    else:
        s = asc.get_sub_block_idx()
        asc.cross_core_wait_flag(FLAG, 2, asc.PipeID.PIPE_FIX)
        if DUAL != 0 or s == SUB:
            res = asc.LocalTensor(out.dtype, asc.TPosition.VECOUT, 65536, size)
            asc.adds(res, ub, s + 1.0, size)
            asc.set_flag(asc.HardEvent.V_MTE3, 0)
            asc.wait_flag(asc.HardEvent.V_MTE3, 0)
            asc.data_copy(out_gm[asc.get_block_idx() * size :], res, size)


def inputs(M, N, K, seed=0, groups=1):
    rng = np.random.default_rng(seed)
    a = rng.uniform(-1, 1, (groups, M, K)).astype(np.float16)
    b = rng.uniform(-1, 1, (K, N)).astype(np.float16)
    c = a.astype(np.float32) @ b.astype(np.float32)
    return (a[0], b, c[0]) if groups == 1 else (a, b, c)


def un_nz(x, M, N):
    """An Nz matrix (N/16 fractal columns of M rows of 16) as M x N."""
    return x.reshape(N // 16, M, 16).transpose(1, 0, 2).reshape(M, N)


@pytest.mark.parametrize("nz", [False, True], ids=["nd", "nz"])
@pytest.mark.parametrize("dual", [1, 2], ids=["split_m", "split_n"])
def test_split_over_both_vector_cores(dual, nz):
    M, N, K = 32, 64, 48
    a, b, c = inputs(M, N, K)
    out = np.zeros(2 * M * N // 2, np.float32)
    cube_to_vector[1, rt.current_stream()](a, np.ascontiguousarray(b.T), out, M, N, K, dual, 0, nz, 0, False)
    halves = out.reshape(2, -1)
    rows, cols = (M // 2, N) if dual == 1 else (M, N // 2)
    for s in range(2):
        got = un_nz(halves[s], rows, cols) if nz else halves[s].reshape(rows, cols)
        want = c[s * rows : (s + 1) * rows] if dual == 1 else c[:, s * cols : (s + 1) * cols]
        np.testing.assert_allclose(got, want + s + 1, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("sub", [0, 1])
def test_one_vector_core_gets_it_all(sub):
    M, N, K = 16, 32, 32
    a, b, c = inputs(M, N, K, seed=1)
    out = np.full(2 * M * N, -7, np.float32)
    cube_to_vector[1, rt.current_stream()](a, np.ascontiguousarray(b.T), out, M, N, K, 0, sub, False, 0, False)
    np.testing.assert_allclose(out[sub * M * N : (sub + 1) * M * N].reshape(M, N), c + sub + 1, rtol=1e-5, atol=1e-5)
    assert (out[(1 - sub) * M * N : (2 - sub) * M * N] == -7).all()  # the other vector core wrote nothing


def test_quantised_and_relu_on_the_way():
    # F322F16 into a float16 UB, ReLU first (single destination: dual mode takes neither)
    M, N, K = 16, 32, 16
    a, b, c = inputs(M, N, K, seed=2)
    out = np.zeros(2 * M * N, np.float16)
    f322f16 = int(asc.QuantModes.F322F16)
    cube_to_vector[1, rt.current_stream()](a, np.ascontiguousarray(b.T), out, M, N, K, 0, 1, False, f322f16, True)
    want = np.maximum(c, 0).astype(np.float16).astype(np.float32) + 2
    np.testing.assert_allclose(out[M * N :].reshape(M, N).astype(np.float32), want, rtol=1e-3, atol=1e-3)


def test_several_groups_each_write_their_own_vector_cores():
    M, N, K = 16, 32, 16
    for groups in (2, 3):
        a, b, c = inputs(M, N, K, seed=3, groups=groups)
        out = np.zeros(groups * M * N, np.float32)
        cube_to_vector[groups, rt.current_stream()](a, np.ascontiguousarray(b.T), out, M, N, K, 1, 0, False, 0,
                                                    False)  # fmt: skip
        halves = out.reshape(groups, 2, M // 2, N)
        for g in range(groups):
            for s in range(2):
                want = c[g, s * M // 2 : (s + 1) * M // 2] + s + 1
                np.testing.assert_allclose(halves[g, s], want, rtol=1e-5, atol=1e-5)


@asc.jit(kernel_type=KernelType.MIX_AIC_1_1)
def one_to_one(a: asc.GlobalAddress, b_t: asc.GlobalAddress, out: asc.GlobalAddress, M: asc.ConstExpr[int],
               N: asc.ConstExpr[int], K: asc.ConstExpr[int], SUB: asc.ConstExpr[int]):  # fmt: skip
    a_gm, b_gm, out_gm = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
    a_gm.set_global_buffer(a)
    b_gm.set_global_buffer(b_t)
    out_gm.set_global_buffer(out)
    ub = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, 1024, M * N)
    if asc.ascend_is_aic():
        c1 = asc.LocalTensor(asc.float32, asc.TPosition.CO1, 0, M * N)
        multiply(a_gm, b_gm, c1, M, N, K, True)
        asc.fixpipe(ub, c1, asc.FixpipeParamsArch3510(N, M, M, N, sub_block_id=SUB))
        asc.cross_core_set_flag(FLAG, 2, asc.PipeID.PIPE_FIX)
    else:
        asc.cross_core_wait_flag(FLAG, 2, asc.PipeID.PIPE_FIX)
        asc.muls(ub, ub, 2.0, M * N)
        asc.set_flag(asc.HardEvent.V_MTE3, 0)
        asc.wait_flag(asc.HardEvent.V_MTE3, 0)
        asc.data_copy(out_gm[asc.get_block_idx() * M * N :], ub, M * N)


def test_mix_aic_1_1_has_one_vector_core():
    M, N, K = 32, 16, 32
    a, b, c = inputs(M, N, K, seed=4)
    out = np.zeros(2 * M * N, np.float32)
    one_to_one[2, rt.current_stream()](a, np.ascontiguousarray(b.T), out, M, N, K, 0)
    np.testing.assert_allclose(out.reshape(2, M, N), np.stack([2 * c, 2 * c]), rtol=1e-5, atol=1e-5)
    with pytest.raises(asc.KernelError, match="MIX_AIC_1_1 kernel's cube core has one vector core"):
        one_to_one[1, rt.current_stream()](a, np.ascontiguousarray(b.T), out, M, N, K, 1)


@asc.jit(kernel_type=KernelType.MIX_AIC_1_2)
def two_rounds(a: asc.GlobalAddress, b_t: asc.GlobalAddress, out: asc.GlobalAddress, M: asc.ConstExpr[int],
               N: asc.ConstExpr[int], K: asc.ConstExpr[int], HAND_BACK: asc.ConstExpr[bool]):  # fmt: skip
    """Round r (0, 1) puts (r + 1) A B, split by M, through the same UB; the vector cores copy each round out and
    tell the cube core they are done with the UB (HAND_BACK) before it writes the next round there."""
    a_gm, b_gm, out_gm = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
    a_gm.set_global_buffer(a)
    b_gm.set_global_buffer(b_t)
    out_gm.set_global_buffer(out)
    half = M // 2 * N
    ub = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, half)
    if asc.ascend_is_aic():
        c1 = asc.LocalTensor(asc.float32, asc.TPosition.CO1, 0, M * N)
        multiply(a_gm, b_gm, c1, M, N, K, True)
        asc.fixpipe(ub, c1, asc.FixpipeParamsArch3510(N, M, M, N, dual_dst_ctl=1))
        asc.cross_core_set_flag(FLAG, 2, asc.PipeID.PIPE_FIX)
        asc.pipe_barrier(asc.PipeID.PIPE_ALL)  # L1, L0A/L0B and L0C are read before the second round rewrites them
        multiply(a_gm, b_gm, c1, M, N, K, False)
        if HAND_BACK:
            asc.cross_core_wait_flag(BACK, 2, asc.PipeID.PIPE_FIX)
        asc.fixpipe(ub, c1, asc.FixpipeParamsArch3510(N, M, M, N, dual_dst_ctl=1))
        asc.cross_core_set_flag(FLAG, 2, asc.PipeID.PIPE_FIX)
    else:
        s = asc.get_sub_block_idx()
        for r in range(2):
            asc.cross_core_wait_flag(FLAG, 2, asc.PipeID.PIPE_FIX)
            res = asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, 65536 + r * 32768, half)
            asc.adds(res, ub, 0.0, half)
            if r == 0:
                asc.cross_core_set_flag(BACK, 2, asc.PipeID.PIPE_V)  # after the read of ub on V
            asc.set_flag(asc.HardEvent.V_MTE3, r)
            asc.wait_flag(asc.HardEvent.V_MTE3, r)
            asc.data_copy(out_gm[(2 * r + s) * half :], res, half)


def test_two_rounds_through_the_same_unified_buffer():
    M, N, K = 32, 32, 16
    a, b, c = inputs(M, N, K, seed=5)
    out = np.zeros(2 * M * N, np.float32)
    two_rounds[1, rt.current_stream()](a, np.ascontiguousarray(b.T), out, M, N, K, True)
    got = out.reshape(2, M, N)  # round r: the two halves one after the other are C's rows in order
    np.testing.assert_allclose(got[0], c, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(got[1], 2 * c, rtol=1e-5, atol=1e-5)


def test_overwriting_what_the_vector_core_still_reads_is_a_race():
    # without the hand-back the second fixpipe is not ordered after the vector cores' first read
    M, N, K = 32, 32, 16
    a, b, _ = inputs(M, N, K, seed=5)
    race = "write-after-read race on Unified Buffer .* of a vector core: fixpipe.ub here and adds"
    with pytest.raises(asc.KernelError, match=race):
        two_rounds[1, rt.current_stream()](a, np.ascontiguousarray(b.T), np.zeros(2 * M * N, np.float32), M, N, K,
                                           False)  # fmt: skip


@asc.jit(kernel_type=KernelType.MIX_AIC_1_2)
def early_read(a: asc.GlobalAddress, b_t: asc.GlobalAddress, out: asc.GlobalAddress, M: asc.ConstExpr[int],
               N: asc.ConstExpr[int], K: asc.ConstExpr[int], FILLED: asc.ConstExpr[bool]):  # fmt: skip
    """The cube core sets the flag before its fixpipe, then a second flag after it: the vector cores read the UB
    after the first wait, which does not order the fixpipe before the read."""
    a_gm, b_gm, out_gm = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
    a_gm.set_global_buffer(a)
    b_gm.set_global_buffer(b_t)
    out_gm.set_global_buffer(out)
    half = M // 2 * N
    ub = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, half)
    if asc.ascend_is_aic():
        c1 = asc.LocalTensor(asc.float32, asc.TPosition.CO1, 0, M * N)
        multiply(a_gm, b_gm, c1, M, N, K, True)
        asc.cross_core_set_flag(FLAG, 2, asc.PipeID.PIPE_FIX)
        asc.fixpipe(ub, c1, asc.FixpipeParamsArch3510(N, M, M, N, dual_dst_ctl=1))
        asc.cross_core_set_flag(BACK, 2, asc.PipeID.PIPE_FIX)
    else:
        if FILLED:  # the UB holds values of the vector core's own: only the race is left to find
            asc.duplicate(ub, 0.0, half)
        asc.cross_core_wait_flag(FLAG, 2, asc.PipeID.PIPE_FIX)
        res = asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, 65536, half)
        asc.pipe_barrier(asc.PipeID.PIPE_V)
        asc.adds(res, ub, 1.0, half)
        asc.cross_core_wait_flag(BACK, 2, asc.PipeID.PIPE_FIX)
        asc.set_flag(asc.HardEvent.V_MTE3, 0)
        asc.wait_flag(asc.HardEvent.V_MTE3, 0)
        asc.data_copy(out_gm[asc.get_sub_block_idx() * half :], res, half)


@pytest.mark.parametrize("filled", [False, True], ids=["unwritten", "filled"])
def test_reading_before_the_wait_that_orders_the_fixpipe(filled):
    # the bytes reach the vector core at the second wait, which finds the read before it unordered
    M, N, K = 32, 32, 16
    a, b, _ = inputs(M, N, K, seed=6)
    with pytest.raises(asc.KernelError, match="race on Unified Buffer bytes .* of a vector core: fixpipe.ub here"):
        early_read[1, rt.current_stream()](a, np.ascontiguousarray(b.T), np.zeros(M * N, np.float32), M, N, K, filled)


@asc.jit(kernel_type=KernelType.MIX_AIC_1_2)
def fixpipe_params(out: asc.GlobalAddress, N: asc.ConstExpr[int], M: asc.ConstExpr[int], DST: asc.ConstExpr[int],
                   DUAL: asc.ConstExpr[int], QUANT: asc.ConstExpr[int], LENGTH: asc.ConstExpr[int],
                   NZ: asc.ConstExpr[bool]):  # fmt: skip
    ub = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, LENGTH)
    if asc.ascend_is_aic():
        c1 = asc.LocalTensor(asc.float32, asc.TPosition.CO1, 0, 4096)
        asc.fixpipe(ub, c1, asc.FixpipeParamsArch3510(N, M, 16, DST, quant_pre=QUANT, dual_dst_ctl=DUAL),
                    asc.FixpipeConfig.cfg_nz_ub if NZ else asc.FixpipeConfig.cfg_row_major_ub)  # fmt: skip
        asc.cross_core_set_flag(FLAG, 2, asc.PipeID.PIPE_FIX)
    else:
        asc.cross_core_wait_flag(FLAG, 2, asc.PipeID.PIPE_FIX)


@pytest.mark.parametrize(
    "args, message",
    [
        ((16, 15, 16, 1, 0, 256, False), "dual_dst_ctl 1 splits M in halves: m_size 15 must be even"),
        ((48, 16, 48, 2, 0, 1024, False), "n_size 48 must be a multiple of 32"),
        ((16, 16, 16, 3, 0, 256, False), "dual_dst_ctl 3 is not 0 .* 3 is reserved"),
        ((16, 16, 16, 1, 1, 256, False), "dual_dst_ctl 1 works with NoQuant and without ReLU only"),
        ((12, 16, 12, 0, 0, 256, False), "NZ2ND rows must fill 32-byte blocks: n_size 12"),
        ((24, 16, 256, 0, 0, 1024, True), "NZ2NZ moves whole 16-column fractals: n_size 24"),
        ((16, 16, 16, 0, 0, 128, False), "writes 1024 bytes from UB address 0 .* the destination tensor has 512"),
    ],
    ids=["odd_m", "n_not_32", "reserved", "dual_quant", "nd_row", "nz_cols", "too_short"],
)
def test_bad_parameters(args, message):
    with pytest.raises(asc.KernelError, match=message):
        fixpipe_params[1, rt.current_stream()](np.zeros(8, np.float32), *args)


def test_atlas_a2_has_no_path_to_the_unified_buffer():
    config.set_platform(config.Backend.Model, config.Platform.Ascend910B1)
    with pytest.raises(asc.KernelError, match="Ascend910B1 .Atlas A2/A3. has no path from L0C to the Unified Buffer"):
        fixpipe_params[1, rt.current_stream()](np.zeros(8, np.float32), 16, 16, 16, 0, 0, 256, False)


@asc.jit(kernel_type=KernelType.AIC_ONLY)
def cube_only(out: asc.GlobalAddress):
    ub = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 256)
    c1 = asc.LocalTensor(asc.float32, asc.TPosition.CO1, 0, 256)
    asc.fixpipe(ub, c1, asc.FixpipeParamsArch3510(16, 16, 16, 16))


def test_a_cube_only_kernel_has_no_vector_core_to_write():
    with pytest.raises(
        asc.KernelError, match=r"needs a mix kernel \(KernelType.MIX_AIC_1_1 or MIX_AIC_1_2\), not AIC_ONLY"
    ):
        cube_only[1, rt.current_stream()](np.zeros(8, np.float32))


def test_python_errors():
    with pytest.raises(asc.CodegenError, match="needs a FixpipeConfig with is_to_ub=True"):

        @asc.jit(kernel_type=KernelType.MIX_AIC_1_2)
        def not_to_ub(out: asc.GlobalAddress):
            ub = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 256)
            c1 = asc.LocalTensor(asc.float32, asc.TPosition.CO1, 0, 256)
            asc.fixpipe(ub, c1, asc.FixpipeParamsArch3510(16, 16, 16, 16), asc.FixpipeConfig.cfg_row_major)

        not_to_ub[1, rt.current_stream()](np.zeros(8, np.float32))
    with pytest.raises(asc.CodegenError, match="must be in the Unified Buffer .VECIN, VECCALC or VECOUT.,"):

        @asc.jit(kernel_type=KernelType.MIX_AIC_1_2)
        def to_l1(out: asc.GlobalAddress):
            l1 = asc.LocalTensor(asc.float32, asc.TPosition.A1, 0, 256)
            c1 = asc.LocalTensor(asc.float32, asc.TPosition.CO1, 0, 256)
            asc.fixpipe(l1, c1, asc.FixpipeParamsArch3510(16, 16, 16, 16))

        to_l1[1, rt.current_stream()](np.zeros(8, np.float32))
