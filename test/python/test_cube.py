"""The cube unit's basic API against numpy: a GEMM built from data_copy with
Nd2NzParams (GM ND -> L1 Nz), load_data (L1 -> L0A Zz / L0B Zn, with the
16 x 16 transpose for 2-byte B), mmad (init, accumulate, bias) and fixpipe
(L0C Nz -> GM ND or Nz, ReLU, F322F16), on shapes that are not multiples of 16."""

import shutil
import subprocess
import warnings
from pathlib import Path

import numpy as np
import pytest

import asc
import asc.lib.runtime as rt
import asc.runtime.config as config
from asc.runtime.config import KernelType
from asc.runtime.jit import MockTensor

from kernels import ascendc_source


def ceil(a, b):
    return (a + b - 1) // b * b


@asc.jit(kernel_type=KernelType.AIC_ONLY)
def gemm(a: asc.GlobalAddress, b: asc.GlobalAddress, c: asc.GlobalAddress, bias: asc.GlobalAddress,
         zeros: asc.GlobalAddress, M: asc.ConstExpr[int], N: asc.ConstExpr[int], K: asc.ConstExpr[int],
         B_TRANSPOSED: asc.ConstExpr[bool], MODE: asc.ConstExpr[str], RELU: asc.ConstExpr[bool],
         QUANT: asc.ConstExpr[int], NZ_OUT: asc.ConstExpr[bool]):  # fmt: skip
    """C = A (M x K) x B (K x N, or its transpose N x K in GM) through L1, L0A/L0B and L0C."""
    c0 = 32 // a.dtype.sizeof()
    m1, n1, k1 = (M + 15) // 16, (N + 15) // 16, (K + c0 - 1) // c0
    frac = 16 * c0  # elements per 512-byte fractal
    a_gm, b_gm, c_gm, bias_gm = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
    a_gm.set_global_buffer(a)
    b_gm.set_global_buffer(b)
    c_gm.set_global_buffer(c)
    bias_gm.set_global_buffer(bias)
    zeros_gm = asc.GlobalTensor()
    zeros_gm.set_global_buffer(zeros)
    a1 = asc.LocalTensor(a.dtype, asc.TPosition.A1, 0, m1 * k1 * frac)
    b_l1 = (m1 * k1 * frac * a.dtype.sizeof() + 511) // 512 * 512
    k16 = (K + 15) // 16 * 16  # rows of B's Nz form in L1 when B is not transposed
    b1 = asc.LocalTensor(
        b.dtype, asc.TPosition.B1, b_l1, max(k1 * n1 * frac, k16 * n1 * 16, k1 * 32 * ((N + 31) // 32) * 32)
    )
    a2 = asc.LocalTensor(a.dtype, asc.TPosition.A2, 0, m1 * k1 * frac)
    # squares may spill past the last Zn fractal: float32 in 16-row slabs, int8 in 32-column pairs
    b2 = asc.LocalTensor(b.dtype, asc.TPosition.B2, 0, (max(k1, k16 // 8) * n1 + 1) * frac)
    # "mislabelled": L0C's tensor declared at VECOUT; mmad and fixpipe address L0C there anyway, as on the board
    c_position = asc.TPosition.VECOUT if MODE == "mislabelled" else asc.TPosition.CO1
    c1 = asc.LocalTensor(c.dtype if QUANT == 0 else asc.float32, c_position, 0, m1 * n1 * 256)
    # GM -> L1: A as Nz (rows M, C0 groups m1*16 rows apart)
    asc.data_copy(a1, a_gm, asc.Nd2NzParams(1, M, K, 0, K, m1 * 16, 1, 0))
    if B_TRANSPOSED:  # B^T (N x K) as Nz is already L0B's Zn
        asc.data_copy(b1, b_gm, asc.Nd2NzParams(1, N, K, 0, K, n1 * 16, 1, 0))
    elif c0 == 16:  # B (K x N) as Nz: 16 x 16 fractals to transpose on the way to L0B
        asc.data_copy(b1, b_gm, asc.Nd2NzParams(1, K, N, 0, N, k16, 1, 0))
    elif c0 == 8:  # float32: 16-row slabs of B, so that a 16 x 16 square's two 16 x 8 fractals are adjacent
        asc.data_copy(b1, zeros_gm, asc.Nd2NzParams(1, 1, k16 * n1 * 16, 0, 0, 1, 1, 0))  # no NaN in the padding
        asc.pipe_barrier(asc.PipeID.PIPE_MTE2)
        slab = 16 * n1 * 16
        if K // 16 > 0:
            asc.data_copy(b1, b_gm, asc.Nd2NzParams(K // 16, 16, N, 16 * N, N, 16, 1, slab))
        if K % 16 > 0:
            asc.data_copy(
                b1[(K // 16) * slab :], b_gm[(K // 16) * 16 * N :], asc.Nd2NzParams(1, K % 16, N, 0, N, 16, 1, 0)
            )
    else:  # int8: B as Nz with rows padded to 32: a 32 x 32 square is two stacked 16 x 32 fractals
        asc.data_copy(b1, b_gm, asc.Nd2NzParams(1, K, N, 0, N, k1 * 32, 1, 0))
    asc.set_flag(asc.HardEvent.MTE2_MTE1, 0)
    asc.wait_flag(asc.HardEvent.MTE2_MTE1, 0)
    for i in range(m1):  # Nz -> Zz: row block i's K fractals are m1 apart in L1
        asc.load_data(a2[i * k1 * frac :], a1[i * frac :], asc.LoadData2DParams(0, k1, m1, 0, 0, False, 0))
    for kk in range(k1):
        if B_TRANSPOSED:
            asc.load_data(b2[kk * n1 * frac :], b1, asc.LoadData2DParams(kk * n1, n1, 1, 0, 0, False, 0))
        elif c0 == 16:
            asc.load_data(b2[kk * n1 * frac :], b1, asc.LoadData2DParams(kk, n1, k16 // 16, 0, 0, True, 0))
    if not B_TRANSPOSED and c0 == 8:  # square (kb, nb) -> Zn fractals (2kb, nb) and (2kb + 1, nb)
        for kb in range(k16 // 16):
            asc.load_data_with_transpose(b2[2 * kb * n1 * frac :], b1,
                                         asc.LoadData2dTransposeParams(kb * n1, n1, 1, 0, n1 - 1, 0))  # fmt: skip
    if not B_TRANSPOSED and c0 == 32:  # square (kb, nb) -> Zn fractals (kb, 2nb) and (kb, 2nb + 1)
        for kb in range(k1):
            asc.load_data_with_transpose(b2[kb * n1 * frac :], b1,
                                         asc.LoadData2dTransposeParams(kb, (n1 + 1) // 2, k1, 1, 0, 0))  # fmt: skip
    asc.set_flag(asc.HardEvent.MTE1_M, 0)
    asc.wait_flag(asc.HardEvent.MTE1_M, 0)
    if MODE == "bias":
        bias1 = asc.LocalTensor(asc.float32 if c.dtype != asc.int32 else asc.int32, asc.TPosition.C1, 262144, 1024)
        bias2 = asc.LocalTensor(bias1.dtype, asc.TPosition.C2, 0, n1 * 16)
        asc.data_copy(bias1, bias_gm, n1 * 16)
        asc.set_flag(asc.HardEvent.MTE2_MTE1, 1)
        asc.wait_flag(asc.HardEvent.MTE2_MTE1, 1)
        asc.data_copy(bias2, bias1, n1 * 16)
        asc.set_flag(asc.HardEvent.MTE1_M, 1)
        asc.wait_flag(asc.HardEvent.MTE1_M, 1)
        asc.mmad(c1, a2, b2, bias2, asc.MmadParams(M, N, K))
    elif MODE == "accumulate":  # the first initialises L0C, the second adds: C = 2 A B
        asc.mmad(c1, a2, b2, asc.MmadParams(M, N, K, cmatrix_init_val=True))
        asc.mmad(c1, a2, b2, asc.MmadParams(M, N, K, cmatrix_init_val=False))
    else:
        asc.mmad(c1, a2, b2, asc.MmadParams(M, N, K))
    asc.set_flag(asc.HardEvent.M_FIX, 0)
    asc.wait_flag(asc.HardEvent.M_FIX, 0)
    if NZ_OUT:
        params = asc.FixpipeParamsV220(n1 * 16, M, m1 * 16, m1 * 16 * 16 * c.dtype.sizeof() // 32, QUANT)
        asc.fixpipe(c_gm, c1, params, asc.FixpipeConfig.cfg_nz)
    else:
        asc.fixpipe(c_gm, c1, asc.FixpipeParamsV220(N, M, m1 * 16, N, QUANT, relu_en=RELU))


F16, F32, I8 = np.float16, np.float32, np.int8
OUT = {F16: np.float32, F32: np.float32, I8: np.int32}
SHAPES = [(16, 16, 16), (32, 48, 64), (47, 30, 40), (1, 17, 3), (128, 96, 80), (20, 129, 33)]


def operands(rng, dtype, m, n, k):
    if dtype == I8:
        return rng.integers(-128, 128, (m, k)).astype(I8), rng.integers(-128, 128, (k, n)).astype(I8)
    return rng.uniform(-2, 2, (m, k)).astype(dtype), rng.uniform(-2, 2, (k, n)).astype(dtype)


def run(a, b, out_dtype, *, mode="plain", relu=False, quant=0, nz_out=False, bias=None, b_transposed=None):
    m, k = a.shape
    n = b.shape[1]
    b_transposed = a.dtype != F16 if b_transposed is None else b_transposed
    b_gm = np.ascontiguousarray(b.T) if b_transposed else b
    size = np.dtype(out_dtype).itemsize
    c = np.full(ceil(n, 16) * ceil(m, 16) if nz_out else m * n, 77, out_dtype)
    bias = np.zeros(ceil(n, 16), np.int32 if a.dtype == I8 else np.float32) if bias is None else bias
    zeros = np.zeros(ceil(k, 32) * ceil(n, 32) * 4, np.uint8 if a.dtype == I8 else a.dtype)
    gemm[1, rt.current_stream()](a, b_gm, c, bias, zeros, m, n, k, b_transposed, mode, relu, quant, nz_out)
    del size
    return c


def product(a, b):
    wide = np.int64 if a.dtype == I8 else np.float64
    return a.astype(wide) @ b.astype(wide)


@pytest.mark.parametrize("dtype", [F16, F32, I8])
@pytest.mark.parametrize("m,n,k", SHAPES)
def test_gemm_through_l1_l0_and_fixpipe(dtype, m, n, k, rng):
    a, b = operands(rng, dtype, m, n, k)
    c = run(a, b, OUT[dtype]).reshape(m, n)
    if dtype == I8:
        np.testing.assert_array_equal(c, product(a, b).astype(np.int32))
    else:
        np.testing.assert_allclose(c, product(a, b), rtol=1e-5, atol=1e-4)


def test_mmad_sums_in_double_in_ascending_k():
    """The Model's mmad: each sum in double, K in ascending order, rounded once to float32. C[0, 0]'s products
    are 2^-48, 2^15, -2^15: 2^-48 is lost in the first addition (0, where K descending or an exact sum give
    2^-48); C[1, 1]'s are 1 and three of 2^-25, kept in double (1 + 2^-23 after rounding, where float32 sums
    give 1)."""
    m = n = 16
    k = 32
    a, b = np.zeros((m, k), F16), np.zeros((k, n), F16)
    a[0, 0], b[0, 0] = 2.0**-24, 2.0**-24
    a[0, 17], b[17, 0] = 1, 2.0**15
    a[0, 30], b[30, 0] = -1, 2.0**15
    a[1, 0], b[0, 1] = 1, 1
    for kk in (1, 2, 3):
        a[1, kk], b[kk, 1] = 2.0**-12, 2.0**-13
    c = run(a, b, np.float32).reshape(m, n)
    products = a.astype(np.float64)[:, :, None] * b.astype(np.float64)[None, :, :]
    np.testing.assert_array_equal(c, np.cumsum(products, axis=1)[:, -1, :].astype(np.float32))
    assert c[0, 0] == 0 and np.cumsum(products[0, ::-1, 0])[-1] == 2.0**-48
    assert c[1, 1] == np.float32(1 + 2.0**-23) and np.cumsum(products[1, :, 1].astype(np.float32))[-1] == 1


@pytest.mark.parametrize("dtype", [F16, F32, I8])
@pytest.mark.parametrize("m,n,k", [(16, 16, 16), (47, 30, 40), (20, 70, 33)])
def test_b_in_either_orientation(dtype, m, n, k, rng):
    """B^T in GM loads straight into Zn; B itself needs load_data's 16 x 16 transpose (2-byte types) or
    load_data_with_transpose's squares (4- and 1-byte types)."""
    a, b = operands(rng, dtype, m, n, k)
    for transposed in (True, False):
        c = run(a, b, OUT[dtype], b_transposed=transposed).reshape(m, n)
        np.testing.assert_allclose(c, product(a, b), rtol=1e-5, atol=1e-4)


@pytest.mark.parametrize("dtype", [F16, I8])
@pytest.mark.parametrize("m,n,k", [(32, 48, 64), (47, 30, 40)])
def test_mmad_accumulate_and_bias(dtype, m, n, k, rng):
    a, b = operands(rng, dtype, m, n, k)
    c = run(a, b, OUT[dtype], mode="accumulate").reshape(m, n)
    np.testing.assert_allclose(c, 2 * product(a, b), rtol=1e-5, atol=1e-4)
    bias = (rng.integers(-50, 50, ceil(n, 16))).astype(np.int32 if dtype == I8 else np.float32)
    c = run(a, b, OUT[dtype], mode="bias", bias=bias).reshape(m, n)
    np.testing.assert_allclose(c, product(a, b) + bias[:n], rtol=1e-5, atol=1e-4)


@pytest.mark.parametrize("m,n,k", [(32, 48, 64), (47, 30, 40)])
def test_fixpipe_relu_quant_and_nz_output(m, n, k, rng):
    a, b = operands(rng, F16, m, n, k)
    want = product(a, b)
    np.testing.assert_allclose(run(a, b, np.float32, relu=True).reshape(m, n), np.maximum(want, 0), rtol=1e-5,
                               atol=1e-4)  # fmt: skip
    half = run(a, b, np.float16, quant=int(asc.QuantModes.F322F16)).reshape(m, n)
    np.testing.assert_array_equal(half, want.astype(np.float32).astype(np.float16))
    nz = run(a, b, np.float32, nz_out=True)
    ma = ceil(m, 16)
    for row in range(m):
        for col in range(n):
            assert nz[(col // 16) * ma * 16 + row * 16 + col % 16] == pytest.approx(want[row, col], rel=1e-5, abs=1e-4)


def test_cube_errors(rng):
    a, b = operands(rng, F16, 16, 16, 16)
    with pytest.raises(asc.errors.KernelError, match="quant_pre 1 does not turn float32 into float32"):
        run(a, b, np.float32, quant=int(asc.QuantModes.F322F16))


@asc.jit(kernel_type=KernelType.AIC_ONLY)
def wrong_places(x: asc.GlobalAddress):
    a = asc.LocalTensor(asc.float16, asc.TPosition.A1, 0, 256)
    b = asc.LocalTensor(asc.float16, asc.TPosition.B2, 0, 256)
    c = asc.LocalTensor(asc.float32, asc.TPosition.CO1, 0, 256)
    asc.mmad(c, a, b, asc.MmadParams(16, 16, 16))


def test_an_operand_labelled_for_another_memory_is_read_where_the_instruction_looks():
    # fm labelled A1 (L1): mmad reads L0A at its address, as the board does; the warning names the line
    with pytest.warns(
        asc.errors.PositionWarning, match=r"mmad: fm is a LocalTensor at TPosition.A1 \(L1\), but the "
    ) as w:
        wrong_places[1, rt.current_stream()](np.zeros(8, np.float32))
    call = "    asc.mmad(c, a, b, asc.MmadParams(16, 16, 16))"
    assert w[0].filename == __file__ and w[0].lineno == open(__file__).read().splitlines().index(call) + 1


@pytest.mark.parametrize("m,n,k", [(16, 16, 16), (47, 30, 40)])
def test_l0c_declared_at_vecout_is_still_l0c_for_mmad_and_fixpipe(m, n, k, rng):
    a, b = operands(rng, F16, m, n, k)
    with pytest.warns(asc.errors.PositionWarning) as caught:
        c = run(a, b, np.float32, mode="mislabelled").reshape(m, n)
    np.testing.assert_allclose(c, product(a, b), rtol=1e-5, atol=1e-4)
    messages = {str(w.message).split(":")[0] for w in caught}
    assert messages == {"mmad", "fixpipe"}
    assert all("test_cube.py" in w.filename for w in caught)


@asc.jit(kernel_type=KernelType.AIC_ONLY)
def transposed_fp32_load(x: asc.GlobalAddress):
    x_gm = asc.GlobalTensor()
    x_gm.set_global_buffer(x, 128)
    b1 = asc.LocalTensor(asc.float32, asc.TPosition.B1, 0, 128)
    b2 = asc.LocalTensor(asc.float32, asc.TPosition.B2, 0, 128)
    asc.data_copy(b1, x_gm, asc.Nd2NzParams(1, 16, 8, 0, 8, 16, 1, 0))
    asc.set_flag(asc.HardEvent.MTE2_MTE1, 0)
    asc.wait_flag(asc.HardEvent.MTE2_MTE1, 0)
    asc.load_data(b2, b1, asc.LoadData2DParams(0, 1, 0, 0, 0, True, 0))


def test_load_data_transposes_two_byte_types_only():
    with pytest.raises(asc.errors.KernelError, match="if_transpose works on 2-byte elements only") as err:
        transposed_fp32_load[1, rt.current_stream()](np.zeros(128, np.float32))
    assert "LoadDataWithTranspose" in str(err.value)


@asc.jit
def nz_to_nd(x: asc.GlobalAddress, z: asc.GlobalAddress, nd: int, n: int, d: int, src_nd: int, src_n: int,
             dst_d: int, dst_nd: int):  # fmt: skip
    x_gm, z_gm = asc.GlobalTensor(), asc.GlobalTensor()
    x_gm.set_global_buffer(x, 4096)
    z_gm.set_global_buffer(z, 4096)
    t = asc.LocalTensor(x.dtype, asc.TPosition.VECOUT, 0, 4096)
    asc.data_copy(t, x_gm, 4096)
    asc.set_flag(asc.HardEvent.MTE2_MTE3, 0)
    asc.wait_flag(asc.HardEvent.MTE2_MTE3, 0)
    asc.data_copy(z_gm, t, asc.Nz2NdParamsFull(nd, n, d, src_nd, src_n, dst_d, dst_nd))


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.int32])
@pytest.mark.parametrize("nd,n,d", [(1, 16, 16), (1, 5, 32), (2, 7, 48), (3, 16, 16)])
def test_data_copy_nz2nd_from_the_unified_buffer(dtype, nd, n, d, rng):
    x = rng.integers(-1000, 1000, 4096).astype(dtype)
    src_n = ceil(n, 16)  # 16-element units between d-groups: the column height, rounded to 16 rows
    src_nd = src_n * (d // 16) // 16 + 1  # 256-element units between matrices (a little slack)
    dst_d, dst_nd = d + 3, (d + 3) * n + 5
    z = np.full(4096, 9, dtype)
    nz_to_nd[1, rt.current_stream()](x, z, nd, n, d, src_nd, src_n, dst_d, dst_nd)
    want = np.full(4096, 9, dtype)
    for i in range(nd):
        for r in range(n):
            for c in range(d):
                want[i * dst_nd + r * dst_d + c] = x[i * src_nd * 256 + (c // 16) * src_n * 16 + r * 16 + c % 16]
    np.testing.assert_array_equal(z, want)


def test_nz2nd_needs_whole_16_element_groups():
    x = np.zeros(4096, np.float16)
    with pytest.raises(asc.errors.KernelError, match="d_value 20 must be a multiple of 16"):
        nz_to_nd[1, rt.current_stream()](x, x.copy(), 1, 4, 20, 1, 16, 20, 80)


@asc.jit(kernel_type=KernelType.AIC_ONLY)
def int8_dequant(a: asc.GlobalAddress, bt: asc.GlobalAddress, c: asc.GlobalAddress, scale_bits: int,
                 VIA_DATA_COPY: asc.ConstExpr[bool]):  # fmt: skip
    """16 x 16 x 32 int8 product (B given transposed), int32 results scaled into float16 on the way out."""
    a_gm, b_gm, c_gm = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
    a_gm.set_global_buffer(a)
    b_gm.set_global_buffer(bt)
    c_gm.set_global_buffer(c)
    a1 = asc.LocalTensor(asc.int8, asc.TPosition.A1, 0, 512)
    b1 = asc.LocalTensor(asc.int8, asc.TPosition.B1, 512, 512)
    a2 = asc.LocalTensor(asc.int8, asc.TPosition.A2, 0, 512)
    b2 = asc.LocalTensor(asc.int8, asc.TPosition.B2, 0, 512)
    c1 = asc.LocalTensor(asc.int32, asc.TPosition.CO1, 0, 256)
    asc.data_copy(a1, a_gm, asc.Nd2NzParams(1, 16, 32, 0, 32, 16, 1, 0))
    asc.data_copy(b1, b_gm, asc.Nd2NzParams(1, 16, 32, 0, 32, 16, 1, 0))
    asc.set_flag(asc.HardEvent.MTE2_MTE1, 0)
    asc.wait_flag(asc.HardEvent.MTE2_MTE1, 0)
    asc.load_data(a2, a1, asc.LoadData2DParams(0, 1, 1, 0, 0, False, 0))
    asc.load_data(b2, b1, asc.LoadData2DParams(0, 1, 1, 0, 0, False, 0))
    asc.set_flag(asc.HardEvent.MTE1_M, 0)
    asc.wait_flag(asc.HardEvent.MTE1_M, 0)
    asc.mmad(c1, a2, b2, asc.MmadParams(16, 16, 32))
    asc.set_flag(asc.HardEvent.M_FIX, 0)
    asc.wait_flag(asc.HardEvent.M_FIX, 0)
    if VIA_DATA_COPY:
        asc.set_fix_pipe_pre_quant_flag(scale_bits)
        asc.data_copy(c_gm, c1, asc.DataCopyCO12DstParams(16, 16, 16, 16, asc.QuantModes.DEQF16, 0, False, True))
    else:
        asc.fixpipe(c_gm, c1, asc.FixpipeParamsV220(16, 16, 16, 16, asc.QuantModes.DEQF16, scale_bits))


@pytest.mark.parametrize("via_data_copy", [False, True])
@pytest.mark.parametrize("scale", [0.5, 0.0078125, 0.015625])
def test_int8_products_dequantised_to_float16(via_data_copy, scale, rng):
    a = rng.integers(-128, 128, (16, 32)).astype(np.int8)
    b = rng.integers(-128, 128, (32, 16)).astype(np.int8)
    c = np.zeros((16, 16), np.float16)
    bits = int(np.array([scale], np.float32).view(np.uint32)[0])  # exact in the (1, 8, 10) form the fixpipe reads
    int8_dequant[1, rt.current_stream()](a, np.ascontiguousarray(b.T), c, bits, via_data_copy)
    want = (a.astype(np.int64) @ b.astype(np.int64)).astype(np.float64) * scale
    np.testing.assert_array_equal(c, want.astype(np.float32).astype(np.float16))


@asc.jit(kernel_type=KernelType.AIC_ONLY)
def gemm_with_queues(a: asc.GlobalAddress, b: asc.GlobalAddress, c: asc.GlobalAddress, M: asc.ConstExpr[int],
                     N: asc.ConstExpr[int], K: asc.ConstExpr[int]):  # fmt: skip
    """The float16 pipeline of `gemm` with TQue hand-overs between the cube memories instead of flags."""
    m1, n1, k1 = (M + 15) // 16, (N + 15) // 16, (K + 15) // 16
    a_gm, b_gm, c_gm = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
    a_gm.set_global_buffer(a)
    b_gm.set_global_buffer(b)
    c_gm.set_global_buffer(c)
    pipe = asc.TPipe()
    q_a1, q_b1 = asc.TQue(asc.TPosition.A1, 1), asc.TQue(asc.TPosition.B1, 1)
    q_a2, q_b2 = asc.TQue(asc.TPosition.A2, 1), asc.TQue(asc.TPosition.B2, 1)
    q_c = asc.TQue(asc.TPosition.CO1, 1)
    pipe.init_buffer(que=q_a1, num=1, len=m1 * k1 * 512)
    pipe.init_buffer(que=q_b1, num=1, len=k1 * n1 * 512)
    pipe.init_buffer(que=q_a2, num=1, len=m1 * k1 * 512)
    pipe.init_buffer(que=q_b2, num=1, len=k1 * n1 * 512)
    pipe.init_buffer(que=q_c, num=1, len=m1 * n1 * 1024)
    a1 = q_a1.alloc_tensor(asc.float16)
    b1 = q_b1.alloc_tensor(asc.float16)
    asc.data_copy(a1, a_gm, asc.Nd2NzParams(1, M, K, 0, K, m1 * 16, 1, 0))
    asc.data_copy(b1, b_gm, asc.Nd2NzParams(1, K, N, 0, N, k1 * 16, 1, 0))
    q_a1.enque(a1)
    q_b1.enque(b1)
    a1 = q_a1.deque(asc.float16)
    b1 = q_b1.deque(asc.float16)
    a2 = q_a2.alloc_tensor(asc.float16)
    b2 = q_b2.alloc_tensor(asc.float16)
    for i in range(m1):
        asc.load_data(a2[i * k1 * 256 :], a1[i * 256 :], asc.LoadData2DParams(0, k1, m1, 0, 0, False, 0))
    for kk in range(k1):
        asc.load_data(b2[kk * n1 * 256 :], b1, asc.LoadData2DParams(kk, n1, k1, 0, 0, True, 0))
    q_a2.enque(a2)
    q_b2.enque(b2)
    q_a1.free_tensor(a1)
    q_b1.free_tensor(b1)
    a2 = q_a2.deque(asc.float16)
    b2 = q_b2.deque(asc.float16)
    c1 = q_c.alloc_tensor(asc.float32)
    asc.mmad(c1, a2, b2, asc.MmadParams(M, N, K))
    q_c.enque(c1)
    q_a2.free_tensor(a2)
    q_b2.free_tensor(b2)
    c1 = q_c.deque(asc.float32)
    asc.fixpipe(c_gm, c1, asc.FixpipeParamsV220(N, M, m1 * 16, N))
    q_c.free_tensor(c1)


@pytest.mark.parametrize("m,n,k", [(32, 48, 64), (47, 30, 40)])
def test_queues_hand_over_between_cube_memories(m, n, k, rng):
    a, b = operands(rng, F16, m, n, k)
    c = np.zeros((m, n), np.float32)
    gemm_with_queues[1, rt.current_stream()](a, b, c, m, n, k)  # the sanitizer checks the hand-overs
    np.testing.assert_allclose(c, product(a, b), rtol=1e-5, atol=1e-4)


@asc.jit(kernel_type=KernelType.AIC_ONLY)
def forgets_mte2_mte1(a: asc.GlobalAddress):
    a_gm = asc.GlobalTensor()
    a_gm.set_global_buffer(a)
    a1 = asc.LocalTensor(asc.float16, asc.TPosition.A1, 0, 256)
    a2 = asc.LocalTensor(asc.float16, asc.TPosition.A2, 0, 256)
    asc.data_copy(a1, a_gm, asc.Nd2NzParams(1, 16, 16, 0, 16, 16, 1, 0))
    asc.load_data(a2, a1, asc.LoadData2DParams(0, 1, 1, 0, 0, False, 0))


def test_racecheck_covers_the_cube_memories():
    with pytest.raises(asc.errors.RaceError, match=r"read-after-write race on L1 bytes \[0, 512\).*MTE2_MTE1") as err:
        forgets_mte2_mte1[1, rt.current_stream()](np.zeros(256, np.float16))
    assert "test_cube.py" in str(err.value)


@asc.jit(kernel_type=KernelType.AIC_ONLY)
def legacy_mmad(x: asc.GlobalAddress, C: asc.ConstExpr, A: asc.ConstExpr, B: asc.ConstExpr):
    dst = asc.LocalTensor(C, asc.TPosition.CO1, 0, 256)
    fm = asc.LocalTensor(A, asc.TPosition.A2, 0, 512)
    filt = asc.LocalTensor(B, asc.TPosition.B2, 0, 512)
    asc.mmad(dst, fm, filt, asc.MmadParams(16, 16, 16))


LEGACY = [("float16", "float16", "float16"), ("uint32", "uint8", "uint8"), ("int32", "uint8", "uint8"),
          ("int32", "uint8", "int8")]  # fmt: skip


@pytest.mark.parametrize("c,a,b", LEGACY)
def test_mmad_of_the_older_series_dtypes_compiles_with_a_warning_and_fails_on_atlas_a2(c, a, b):
    # Ascend C's Mmad tables list these for the Atlas training series / inference AI Core, not A2/A3
    with pytest.warns(asc.errors.PlatformWarning, match=f"mmad of {a} x {b} into {c} is not supported on Atlas A2/A3"):
        with pytest.raises(
            asc.errors.KernelError, match=f"Ascend910B1 .Atlas A2/A3. has no mmad of {a} x {b} into {c}"
        ):
            legacy_mmad[1, rt.current_stream()](np.zeros(8, np.float32), *(getattr(asc, t) for t in (c, a, b)))


@pytest.mark.parametrize("c,a,b", [("float16", "float32", "float32"), ("int32", "int8", "uint8"),
                                   ("float32", "int8", "int8")])  # fmt: skip
def test_mmad_dtype_combinations_outside_the_tables_are_refused(c, a, b):
    with pytest.raises(asc.errors.CodegenError, match="not one of Mmad's dtype combinations|only uint8 x int8 mixes"):
        legacy_mmad[1, rt.current_stream()](np.zeros(8, np.float32), *(getattr(asc, t) for t in (c, a, b)))


@asc.jit(kernel_type=KernelType.AIC_ONLY)
def transpose_v2(x: asc.GlobalAddress, DST: asc.ConstExpr[int]):
    src = asc.LocalTensor(asc.float16, asc.TPosition.B1, 0, 1024)
    dst = asc.LocalTensor(asc.float16, asc.TPosition(DST), 0, 1024)
    asc.load_data_with_transpose(dst, src, asc.LoadData2dTransposeParamsV2(0, 2, 1, 0, 0, 0, 0))


def test_load_data_with_transpose_v2_compiles_with_a_warning_and_fails_on_atlas_a2():
    # LoadData2dTransposeParamsV2 is Ascend 950PR/950DT's (Ascend C: "Current version don't support ... V2")
    with pytest.warns(asc.errors.PlatformWarning, match="LoadData2dTransposeParamsV2 is Ascend 950PR/950DT's form"):
        with pytest.raises(asc.errors.KernelError, match="Ascend910B1 .Atlas A2/A3. has no LoadDataWithTranspose with"):
            transpose_v2[1, rt.current_stream()](np.zeros(8, np.float32), int(asc.TPosition.B2))


def test_load_data_with_transpose_v2_runs_without_a_warning_on_ascend_950():
    config.set_platform(config.Backend.Model, config.Platform.Ascend950PR_9599)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            transpose_v2[1, rt.current_stream()](np.zeros(8, np.float32), int(asc.TPosition.B2))
    finally:
        config.set_platform(config.Backend.Model, config.Platform.Ascend910B1)


def test_load_data_with_transpose_v2_loads_l0b_only():
    # an L0A tensor: the instruction addresses L0B at its address, as the position policy says
    with pytest.warns(
        asc.errors.PositionWarning, match="load_data_with_transpose: dst is a LocalTensor at TPosition.A2"
    ):
        with pytest.warns(asc.errors.PlatformWarning), pytest.raises(asc.errors.KernelError):
            transpose_v2[1, rt.current_stream()](np.zeros(8, np.float32), int(asc.TPosition.A2))


@asc.jit(kernel_type=KernelType.AIC_ONLY)
def chained(a: asc.GlobalAddress, b_t: asc.GlobalAddress, eye: asc.GlobalAddress, d: asc.GlobalAddress,
            M: asc.ConstExpr[int], N: asc.ConstExpr[int], K: asc.ConstExpr[int]):  # fmt: skip
    """C = A x B into L0C (float32), data_copy L0C -> L1 as float16 Nz (F322F16), then D = C x I through L0A."""
    m1, n1, k1 = M // 16, N // 16, (K + 15) // 16
    a_gm, b_gm, i_gm, d_gm = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
    a_gm.set_global_buffer(a)
    b_gm.set_global_buffer(b_t)
    i_gm.set_global_buffer(eye)
    d_gm.set_global_buffer(d)
    a1 = asc.LocalTensor(asc.float16, asc.TPosition.A1, 0, m1 * k1 * 256)
    b1 = asc.LocalTensor(asc.float16, asc.TPosition.B1, 65536, n1 * k1 * 256)
    i1 = asc.LocalTensor(asc.float16, asc.TPosition.B1, 131072, n1 * n1 * 256)
    c_l1 = asc.LocalTensor(asc.float16, asc.TPosition.C1, 196608, m1 * n1 * 256)
    a2 = asc.LocalTensor(asc.float16, asc.TPosition.A2, 0, m1 * max(k1, n1) * 256)
    b2 = asc.LocalTensor(asc.float16, asc.TPosition.B2, 0, max(k1, n1) * n1 * 256)
    c1 = asc.LocalTensor(asc.float32, asc.TPosition.CO1, 0, m1 * n1 * 256)
    asc.data_copy(a1, a_gm, asc.Nd2NzParams(1, M, K, 0, K, M, 1, 0))
    asc.data_copy(b1, b_gm, asc.Nd2NzParams(1, N, K, 0, K, N, 1, 0))
    asc.data_copy(i1, i_gm, asc.Nd2NzParams(1, N, N, 0, N, N, 1, 0))
    asc.pipe_barrier(asc.PipeID.PIPE_ALL)
    for i in range(m1):
        asc.load_data(a2[i * k1 * 256 :], a1[i * 256 :], asc.LoadData2DParams(0, k1, m1, 0, 0, False, 0))
    for kk in range(k1):
        asc.load_data(b2[kk * n1 * 256 :], b1, asc.LoadData2DParams(kk * n1, n1, 1, 0, 0, False, 0))
    asc.pipe_barrier(asc.PipeID.PIPE_ALL)
    asc.mmad(c1, a2, b2, asc.MmadParams(M, N, K))
    asc.pipe_barrier(asc.PipeID.PIPE_ALL)
    # L0C -> L1: float16 Nz, its 16-column groups M rows (M * 16 * 2 / 32 blocks) apart
    asc.data_copy(c_l1, c1, intri_params=asc.DataCopyCO12DstParams(N, M, M, M, asc.QuantModes.F322F16, 0))
    asc.pipe_barrier(asc.PipeID.PIPE_ALL)
    for i in range(m1):
        asc.load_data(a2[i * n1 * 256 :], c_l1[i * 256 :], asc.LoadData2DParams(0, n1, m1, 0, 0, False, 0))
    for kk in range(n1):
        asc.load_data(b2[kk * n1 * 256 :], i1, asc.LoadData2DParams(kk * n1, n1, 1, 0, 0, False, 0))
    asc.pipe_barrier(asc.PipeID.PIPE_ALL)
    asc.mmad(c1, a2, b2, asc.MmadParams(M, N, N))
    asc.pipe_barrier(asc.PipeID.PIPE_ALL)
    asc.fixpipe(d_gm, c1, asc.FixpipeParamsV220(N, M, M, N, 0))


@pytest.mark.parametrize("m,n,k", [(16, 16, 16), (32, 48, 40), (48, 32, 7)])
def test_l0c_to_l1_feeds_the_next_product(m, n, k, rng):
    """data_copy(l1, l0c, DataCopyCO12DstParams(..., F322F16)): L0C's float32 Nz as float16 Nz in L1 (NZ2NZ,
    rounded to nearest), which load_data takes on to L0A: (A x B) x I equals the float16 rounding of A x B."""
    a, b = operands(rng, F16, m, n, k)
    d = np.full(m * n, 77, np.float32)
    chained[1, rt.current_stream()](a, np.ascontiguousarray(b.T), np.eye(n, dtype=F16), d, m, n, k)
    want = product(a, b).astype(np.float32).astype(F16).astype(np.float32)
    np.testing.assert_array_equal(d.reshape(m, n), want)


@asc.jit(kernel_type=KernelType.AIC_ONLY)
def l0c_to_l1_misuse(x: asc.GlobalAddress, QUANT: asc.ConstExpr[int], NZ2ND: asc.ConstExpr[bool]):
    c1 = asc.LocalTensor(asc.float32, asc.TPosition.CO1, 0, 256)
    c_l1 = asc.LocalTensor(asc.float16, asc.TPosition.C1, 0, 256)
    asc.data_copy(c_l1, c1, intri_params=asc.DataCopyCO12DstParams(16, 16, 16, 16, QUANT, 0, False, NZ2ND))


def test_l0c_to_l1_takes_a_quantisation_and_nz_only():
    with pytest.raises(asc.errors.KernelError, match="quant_pre NoQuant is not supported on this path"):
        l0c_to_l1_misuse[1, rt.current_stream()](np.zeros(8, np.float32), 0, False)
    with pytest.raises(asc.errors.KernelError, match="copies NZ to NZ only; nz2nd_en is Ascend 950's"):
        l0c_to_l1_misuse[1, rt.current_stream()](np.zeros(8, np.float32), 1, True)


@asc.jit(kernel_type=KernelType.MIX_AIC_1_1)
def a_through_the_ub(a: asc.GlobalAddress, b_t: asc.GlobalAddress, c: asc.GlobalAddress, M: asc.ConstExpr[int],
                     N: asc.ConstExpr[int], K: asc.ConstExpr[int]):  # fmt: skip
    """A GM -> UB -> L1 (data_copy with Nd2NzParams out of the Unified Buffer), then A x B (B GM -> L1 as Zn).
    The Model keeps each core's memories apart (Ascend C moves the UB -> L1 copy through the Matmul API's GM
    workspace to the cube core), so the whole chain runs on the group's vector core: a check of the layout."""
    m1, n1, k1 = (M + 15) // 16, (N + 15) // 16, (K + 15) // 16
    a_gm, b_gm, c_gm = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
    a_gm.set_global_buffer(a)
    b_gm.set_global_buffer(b_t)
    c_gm.set_global_buffer(c)
    if asc.ascend_is_aiv():
        a1 = asc.LocalTensor(asc.float16, asc.TPosition.A1, 0, m1 * k1 * 256)
        b1 = asc.LocalTensor(asc.float16, asc.TPosition.B1, 65536, n1 * k1 * 256)
        a2 = asc.LocalTensor(asc.float16, asc.TPosition.A2, 0, m1 * k1 * 256)
        b2 = asc.LocalTensor(asc.float16, asc.TPosition.B2, 0, k1 * n1 * 256)
        c1 = asc.LocalTensor(asc.float32, asc.TPosition.CO1, 0, m1 * n1 * 256)
        a_ub = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, 0, M * K)
        asc.data_copy(a_ub, a_gm, M * K)
        asc.data_copy(b1, b_gm, asc.Nd2NzParams(1, N, K, 0, K, n1 * 16, 1, 0))
        asc.pipe_barrier(asc.PipeID.PIPE_ALL)
        asc.data_copy(a1, a_ub, intri_params=asc.Nd2NzParams(1, M, K, 0, K, m1 * 16, 1, 0))
        asc.pipe_barrier(asc.PipeID.PIPE_ALL)
        for i in range(m1):
            asc.load_data(a2[i * k1 * 256 :], a1[i * 256 :], asc.LoadData2DParams(0, k1, m1, 0, 0, False, 0))
        for kk in range(k1):
            asc.load_data(b2[kk * n1 * 256 :], b1, asc.LoadData2DParams(kk * n1, n1, 1, 0, 0, False, 0))
        asc.pipe_barrier(asc.PipeID.PIPE_ALL)
        asc.mmad(c1, a2, b2, asc.MmadParams(M, N, K))
        asc.pipe_barrier(asc.PipeID.PIPE_ALL)
        asc.fixpipe(c_gm, c1, asc.FixpipeParamsV220(N, M, m1 * 16, N, 0))


@pytest.mark.parametrize("m,n,k", [(16, 16, 16), (32, 48, 64), (24, 30, 40), (8, 17, 64)])
def test_nd2nz_from_the_unified_buffer_into_l1(m, n, k, rng):
    """data_copy(l1, ub_tensor, intri_params=Nd2NzParams(...)) lays A out as the GM form does: A x B matches."""
    a, b = operands(rng, F16, m, n, k)
    c = np.full(m * n, 77, np.float32)
    a_through_the_ub[1, rt.current_stream()](a, np.ascontiguousarray(b.T), c, m, n, k)
    np.testing.assert_allclose(c.reshape(m, n), product(a, b), rtol=1e-5, atol=1e-4)


ROOT = Path(__file__).resolve().parents[2]
SHIM = ROOT / "build" / "test" / "ascendc_cpu"


@pytest.mark.skipif(shutil.which("g++") is None or not (SHIM / "include").is_dir(), reason="needs g++ and the shim")
def test_the_other_platforms_forms_are_emitted_as_ascend_c_that_compiles(tmp_path):
    """No A2/A3 launch runs them (so the round trip cannot): the emitted Ascend C still compiles against the CPU
    shim, spelling Mmad with a half L0C and LoadDataWithTranspose with LoadData2dTransposeParamsV2."""
    x = MockTensor(asc.float32)
    with warnings.catch_warnings():  # the warning itself is tested above (a cached kernel does not repeat it)
        warnings.simplefilter("ignore", asc.errors.PlatformWarning)
        sources = [ascendc_source(legacy_mmad.compile(x, c, a, b)) for c, a, b in
                   ((asc.float16, asc.float16, asc.float16), (asc.int32, asc.uint8, asc.int8))]  # fmt: skip
        sources.append(ascendc_source(transpose_v2.compile(x, int(asc.TPosition.B2))))
    assert "AscendC::Mmad(" in sources[0] and "AscendC::LoadData2dTransposeParamsV2(" in sources[2]
    for i, source in enumerate(sources):
        (tmp_path / f"k{i}.cpp").write_text(source)
        cmd = ["g++", "-std=c++17", "-fsyntax-only", f"-I{ROOT / 'test' / 'ascendc_cpu'}", f"-I{SHIM / 'include'}"]
        done = subprocess.run([*cmd, str(tmp_path / f"k{i}.cpp")], capture_output=True, text=True)
        assert done.returncode == 0, done.stderr[-2000:]
