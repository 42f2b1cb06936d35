"""The cube unit's extras against numpy: init_const_value (every position and dtype, repeat / block / gap
parameters), the 4:2 sparse pair load_data_with_sparse + mmad_with_sparse (against A @ B of the original sparse
B), load_data with LoadData3DParamsV2 (img2col: kernel size, stride, dilation, padding, padding values, the
boundary and repeat registers, L0A plain and transposed, L0B), the HF32 modes of mmad and the layout mode, and
the errors. On-chip results are read back through mmad with an identity matrix, which reproduces them exactly."""

import ml_dtypes
import numpy as np
import pytest

import asc
import asc.lib.runtime as rt
from asc.runtime.config import KernelType

E = asc.HardEvent
L1_HIGH = 262144  # a second L1 region: identities live there


def named(space, name):
    """asc.<name> (a dtype) or asc.TPosition.<name>, for kernels whose ConstExpr names them."""
    return getattr(space, name)


def sync(event):
    asc.set_flag(event, 0)
    asc.wait_flag(event, 0)


@asc.jit
def identity_a2(eye_gm, a1, a2, k, c0):
    """The k x k identity into L0A (Zz) through L1."""
    m1, k1, frac = (k + 15) // 16, (k + c0 - 1) // c0, 16 * c0
    asc.data_copy(a1, eye_gm, asc.Nd2NzParams(1, k, k, 0, k, m1 * 16, 1, 0))
    sync(E.MTE2_MTE1)
    for i in range(m1):
        asc.load_data(a2[i * k1 * frac :], a1[i * frac :], asc.LoadData2DParams(0, k1, m1, 0, 0, False, 0))


@asc.jit
def identity_b2(eye_gm, b1, b2, k, c0):
    """The k x k identity into L0B (Zn) through L1: its transpose (itself) in Nz is Zn."""
    n1, k1, frac = (k + 15) // 16, (k + c0 - 1) // c0, 16 * c0
    asc.data_copy(b1, eye_gm, asc.Nd2NzParams(1, k, k, 0, k, n1 * 16, 1, 0))
    sync(E.MTE2_MTE1)
    for kk in range(k1):
        asc.load_data(b2[kk * n1 * frac :], b1, asc.LoadData2DParams(kk * n1, n1, 1, 0, 0, False, 0))


@asc.jit
def product_out(c_gm, c1, a2, b2, m, n, k):
    """C = A x B (m x n) to GM, row-major."""
    sync(E.MTE1_M)
    asc.mmad(c1, a2, b2, asc.MmadParams(m, n, k))
    sync(E.M_FIX)
    asc.fixpipe(c_gm, c1, asc.FixpipeParamsV220(n, m, (m + 15) // 16 * 16, n, 0))


# ---- references --------------------------------------------------------------------------------------------


def zz(flat, m, k, c0):
    """The m x k matrix held in Zz fractals (16 x c0, row blocks first)."""
    i, j = np.meshgrid(np.arange(m), np.arange(k), indexing="ij")
    return flat[((i // 16) * ((k + c0 - 1) // c0) + j // c0) * 16 * c0 + (i % 16) * c0 + j % c0]


def zn(flat, k, n, c0):
    """The k x n matrix held in Zn fractals (16 n-rows of c0 k-values, K blocks first)."""
    i, j = np.meshgrid(np.arange(k), np.arange(n), indexing="ij")
    return flat[((i // c0) * ((n + 15) // 16) + j // 16) * 16 * c0 + (j % 16) * c0 + i % c0]


def fill_reference(size, block, r, b, g, value, base, dtype):
    out = np.full(size, base, dtype)
    per = block // np.dtype(dtype).itemsize
    for i in range(r):
        start = i * (b + g) * per
        out[start : start + b * per] = value
    return out


# ---- init_const_value --------------------------------------------------------------------------------------

BF16 = ml_dtypes.bfloat16
VIEW = {2: np.float16, 4: np.float32}  # the dtype mmad reads the filled bytes as
FILL_DTYPES = ["float16", "bfloat16", "float32", "int16", "uint16", "int32", "uint32"]


@asc.jit(kernel_type=KernelType.AIC_ONLY)
def init_kernel(out: asc.GlobalAddress, eye: asc.GlobalAddress, r: int, b: int, g: int, fvalue: float, fbase: float,
                ivalue: int, ibase: int, POS: asc.ConstExpr[str], DT: asc.ConstExpr[str]):  # fmt: skip
    dtype = named(asc, DT)
    value, base = (fvalue, fbase) if dtype.is_float() else (ivalue, ibase)
    view = eye.dtype
    c0 = 32 // view.sizeof()
    eye_gm, c_gm = asc.GlobalTensor(), asc.GlobalTensor()
    eye_gm.set_global_buffer(eye)
    c_gm.set_global_buffer(out)
    frac = 16 * c0
    size = 8 * frac  # eight fractals: the matrix 64 x 2*C0 (L1, L0A) or 2*C0 x 64 (L0B)
    c1 = asc.LocalTensor(asc.float32, asc.TPosition.CO1, 0, 64 * 64)
    if POS == "B2":
        t = asc.LocalTensor(dtype, asc.TPosition.B2, 0, size * view.sizeof() // dtype.sizeof())
        asc.init_const_value(t, asc.InitConstValueParams(1, 8, 0, base))
        asc.init_const_value(t, asc.InitConstValueParams(repeat_times=r, block_num=b, dst_gap=g, init_value=value))
        a1 = asc.LocalTensor(view, asc.TPosition.A1, L1_HIGH, 64 * 64)
        a2 = asc.LocalTensor(view, asc.TPosition.A2, 0, 64 * 64)
        identity_a2(eye_gm, a1, a2, 2 * c0, c0)
        product_out(c_gm, c1, a2, t.reinterpret_cast(view), 2 * c0, 64, 2 * c0)
    else:
        b1 = asc.LocalTensor(view, asc.TPosition.B1, L1_HIGH, 64 * 64)
        b2 = asc.LocalTensor(view, asc.TPosition.B2, 0, 64 * 64)
        a2 = asc.LocalTensor(view, asc.TPosition.A2, 0, size)
        position = named(asc.TPosition, POS)
        blocks = 8 if POS == "A2" else 8 * 16
        t = asc.LocalTensor(dtype, position, 0, size * view.sizeof() // dtype.sizeof())
        asc.init_const_value(t, asc.InitConstValueParams(1, blocks, 0, base))
        asc.init_const_value(dst=t, init_const_value_params=asc.InitConstValueParams(r, b, g, value))
        if POS != "A2":  # L1 -> L0A as it is, fractal for fractal
            sync(E.MTE2_MTE1)
            asc.load_data(a2, t.reinterpret_cast(view), asc.LoadData2DParams(0, 8, 1, 0, 0, False, 0))
        identity_b2(eye_gm, b1, b2, 2 * c0, c0)
        product_out(c_gm, c1, a2, b2, 64, 2 * c0, 2 * c0)


def fill_values(dtype, rng, count):
    if dtype in ("int16", "uint16"):  # bit patterns of normal halves
        return [int(v) for v in rng.integers(0x0400, 0x7800, count)]
    if dtype in ("int32", "uint32"):  # bit patterns of normal floats
        return [int(v) for v in rng.integers(0x00800000, 0x7F000000, count)]
    return [float(v) for v in np.round(rng.uniform(-100, 100, count), 2)]


@pytest.mark.parametrize("pos", ["A1", "B1", "A2", "B2"])
@pytest.mark.parametrize("dtype", FILL_DTYPES)
def test_init_const_value_fills_blocks_by_repeat_parameters(pos, dtype, rng):
    np_dtype = np.dtype(BF16 if dtype == "bfloat16" else dtype)
    view = BF16 if dtype == "bfloat16" else VIEW[np_dtype.itemsize]
    c0 = 32 // np.dtype(view).itemsize
    l1 = pos in ("A1", "B1")
    block, total = (32, 8 * 512 // 32) if l1 else (512, 8)
    eye = np.eye(2 * c0, dtype=view)
    for _ in range(3):
        r = int(rng.integers(1, 4))
        b = int(rng.integers(1, max(2, total // (2 * r))))
        g = int(rng.integers(0, 3))
        while (r - 1) * (b + g) + b > total:
            r -= 1
        value, base = fill_values(dtype, rng, 2)
        out = np.zeros(64 * 2 * c0, np.float32)
        fv, fb = (value, base) if isinstance(value, float) else (0.0, 0.0)
        iv, ib = (0, 0) if isinstance(value, float) else (value, base)
        init_kernel[1, rt.current_stream()](out, eye, r, b, g, fv, fb, iv, ib, pos, dtype)
        flat = fill_reference(8 * 512 // np_dtype.itemsize, block, r, b, g, value, base, np_dtype).view(view)
        want = (zn(flat, 2 * c0, 64, c0) if pos == "B2" else zz(flat, 64, 2 * c0, c0)).astype(np.float32)
        np.testing.assert_array_equal(out.reshape(want.shape), want)


# ---- the 4:2 sparse pair -----------------------------------------------------------------------------------


@asc.jit(kernel_type=KernelType.AIC_ONLY)
def sparse_kernel(a: asc.GlobalAddress, b: asc.GlobalAddress, idx: asc.GlobalAddress, c: asc.GlobalAddress,
                  M: asc.ConstExpr[int], N: asc.ConstExpr[int], K: asc.ConstExpr[int],
                  ACC: asc.ConstExpr[bool]):  # fmt: skip
    m1, k1, n1 = (M + 15) // 16, (K + 31) // 32, (N + 15) // 16
    kf = (2 * ((K + 3) // 4) + 31) // 32  # fractal rows of the dense B (two of every four k)
    a_gm, b_gm, i_gm, c_gm = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
    a_gm.set_global_buffer(a)
    b_gm.set_global_buffer(b)
    i_gm.set_global_buffer(idx)
    c_gm.set_global_buffer(c)
    a1 = asc.LocalTensor(asc.int8, asc.TPosition.A1, 0, m1 * k1 * 512)
    b1 = asc.LocalTensor(asc.int8, asc.TPosition.B1, 131072, kf * n1 * 512)
    i1 = asc.LocalTensor(asc.uint8, asc.TPosition.B1, 196608, kf * n1 * 128)
    a2 = asc.LocalTensor(asc.int8, asc.TPosition.A2, 0, m1 * k1 * 512)
    b2 = asc.LocalTensor(asc.int8, asc.TPosition.B2, 0, kf * n1 * 512)
    c1 = asc.LocalTensor(asc.int32, asc.TPosition.CO1, 0, m1 * n1 * 256)
    asc.data_copy(a1, a_gm, asc.Nd2NzParams(1, M, K, 0, K, m1 * 16, 1, 0))
    asc.data_copy(b1, b_gm, kf * n1 * 512)
    asc.data_copy(i1, i_gm, kf * n1 * 128)
    sync(E.MTE2_MTE1)
    for i in range(m1):
        asc.load_data(a2[i * k1 * 512 :], a1[i * 512 :], asc.LoadData2DParams(0, k1, m1, 0, 0, False, 0))
    params = asc.LoadData2DParams(repeat_times=kf * n1, src_stride=0, if_transpose=False)
    asc.load_data_with_sparse(dst=b2, src=b1, idx=i1, load_data_param=params)
    sync(E.MTE1_M)
    asc.mmad_with_sparse(c1, a2, b2, asc.MmadParams(M, N, K, False, 0, False, False, False))
    if ACC:
        asc.mmad_with_sparse(c1, a2, b2, asc.MmadParams(M, N, K, unit_flag=0, cmatrix_source=False,
                                                        cmatrix_init_val=False))  # fmt: skip
    sync(E.M_FIX)
    asc.fixpipe(c_gm, c1, asc.FixpipeParamsV220(N, M, m1 * 16, N, 0))


def sparse_b(rng, n, k):
    """A sparse n x k int8 B, at most two non-zeros in every four k (0, 1 or 2 of them)."""
    kp = (k + 3) // 4 * 4
    b = np.zeros((n, kp), np.int8)
    for row in range(n):
        for g in range(0, kp, 4):
            free = [p for p in range(4) if g + p < k]
            count = min(int(rng.integers(0, 3)) if rng.random() < 0.3 else 2, len(free))
            for p in rng.choice(free, count, replace=False):
                b[row, g + p] = rng.choice([v for v in range(-128, 128) if v != 0])
    return b[:, :k]


def densify(b):
    """The documentation's 4:2 densification: per four k, two values and two 2-bit indices."""
    n, k = b.shape
    kp = (k + 3) // 4 * 4
    padded = np.zeros((n, kp), np.int8)
    padded[:, :k] = b
    dense, index = np.zeros((n, kp // 2), np.int8), np.zeros((n, kp // 2), np.uint8)
    for row in range(n):
        for g in range(kp // 4):
            block = padded[row, 4 * g : 4 * g + 4]
            nz = [p for p in range(4) if block[p] != 0]
            if len(nz) == 2:
                pair, idx = [block[nz[0]], block[nz[1]]], [nz[0], nz[1] - 1]
            elif len(nz) == 1 and nz[0] == 3:
                pair, idx = [0, block[3]], [0, 2]
            elif len(nz) == 1:
                pair, idx = [block[nz[0]], 0], [nz[0], 0]
            else:
                pair, idx = [0, 0], [0, 0]
            dense[row, 2 * g : 2 * g + 2], index[row, 2 * g : 2 * g + 2] = pair, idx
    return dense, index


def zn_bytes(dense, index):
    """The dense B and its index matrix in Zn fractals (16 n x 32 k; 16 n x 8 index bytes), K blocks first."""
    n, kd = dense.shape
    n1, kf = (n + 15) // 16, (kd + 31) // 32
    d = np.zeros((n1 * 16, kf * 32), np.int8)
    d[:n, :kd] = dense
    i = np.zeros((n1 * 16, kf * 32), np.uint8)
    i[:n, :kd] = index
    packed = (i[:, 0::4] | (i[:, 1::4] << 2) | (i[:, 2::4] << 4) | (i[:, 3::4] << 6)).astype(np.uint8)
    b_zn = d.reshape(n1, 16, kf, 32).transpose(2, 0, 1, 3).ravel()
    i_zn = packed.reshape(n1, 16, kf, 8).transpose(2, 0, 1, 3).ravel()
    return np.ascontiguousarray(b_zn), np.ascontiguousarray(i_zn)


def run_sparse(a, b_zn, i_zn, m, n, k, acc=False):
    c = np.full(m * n, 7, np.int32)
    sparse_kernel[1, rt.current_stream()](a, b_zn, i_zn, c, m, n, k, acc)
    return c.reshape(m, n)


@pytest.mark.parametrize("m,n,k", [(20, 20, 20), (16, 16, 64), (32, 48, 128), (47, 30, 40), (5, 17, 18)])
def test_sparse_mmad_equals_the_product_with_the_sparse_matrix(m, n, k, rng):
    a = rng.integers(-128, 128, (m, k)).astype(np.int8)
    b = sparse_b(rng, n, k)
    b_zn, i_zn = zn_bytes(*densify(b))
    want = a.astype(np.int64) @ b.astype(np.int64).T
    np.testing.assert_array_equal(run_sparse(a, b_zn, i_zn, m, n, k), want.astype(np.int32))
    np.testing.assert_array_equal(run_sparse(a, b_zn, i_zn, m, n, k, acc=True), (2 * want).astype(np.int32))


def test_sparse_index_3_is_refused(rng):
    a = rng.integers(-4, 4, (16, 64)).astype(np.int8)
    b_zn, i_zn = zn_bytes(*densify(sparse_b(rng, 16, 64)))
    i_zn[5] |= 0b11 << 4
    with pytest.raises(asc.errors.KernelError, match="index of dense B element .* is 3"):
        run_sparse(a, b_zn, i_zn, 16, 16, 64)


# ---- HF32 and the layout mode ------------------------------------------------------------------------------


@asc.jit(kernel_type=KernelType.AIC_ONLY)
def f32_gemm(a: asc.GlobalAddress, bt: asc.GlobalAddress, c: asc.GlobalAddress, M: asc.ConstExpr[int],
             N: asc.ConstExpr[int], K: asc.ConstExpr[int], HF32: asc.ConstExpr[bool], TRANS: asc.ConstExpr[bool],
             LAYOUT: asc.ConstExpr[bool]):  # fmt: skip
    """C = A x B twice: with the modes, then with them off again (c holds both, one after the other)."""
    m1, n1, k1, frac = (M + 15) // 16, (N + 15) // 16, (K + 7) // 8, 128
    a_gm, b_gm, c_gm = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
    a_gm.set_global_buffer(a)
    b_gm.set_global_buffer(bt)
    c_gm.set_global_buffer(c)
    a1 = asc.LocalTensor(asc.float32, asc.TPosition.A1, 0, m1 * k1 * frac)
    b1 = asc.LocalTensor(asc.float32, asc.TPosition.B1, 131072, k1 * n1 * frac)
    a2 = asc.LocalTensor(asc.float32, asc.TPosition.A2, 0, m1 * k1 * frac)
    b2 = asc.LocalTensor(asc.float32, asc.TPosition.B2, 0, k1 * n1 * frac)
    c1 = asc.LocalTensor(asc.float32, asc.TPosition.CO1, 0, m1 * n1 * 256)
    c2 = asc.LocalTensor(asc.float32, asc.TPosition.CO1, 65536, m1 * n1 * 256)
    asc.data_copy(a1, a_gm, asc.Nd2NzParams(1, M, K, 0, K, m1 * 16, 1, 0))
    asc.data_copy(b1, b_gm, asc.Nd2NzParams(1, N, K, 0, K, n1 * 16, 1, 0))
    sync(E.MTE2_MTE1)
    for i in range(m1):
        asc.load_data(a2[i * k1 * frac :], a1[i * frac :], asc.LoadData2DParams(0, k1, m1, 0, 0, False, 0))
    for kk in range(k1):
        asc.load_data(b2[kk * n1 * frac :], b1, asc.LoadData2DParams(kk * n1, n1, 1, 0, 0, False, 0))
    sync(E.MTE1_M)
    asc.set_hf32_mode(HF32)
    asc.set_hf32_trans_mode(TRANS)
    asc.set_mm_layout_transform(LAYOUT)
    asc.mmad(c1, a2, b2, asc.MmadParams(M, N, K))
    asc.set_hf32_mode(False)
    asc.set_hf32_trans_mode(False)
    asc.set_mm_layout_transform(False)
    asc.mmad(c2, a2, b2, asc.MmadParams(M, N, K))
    sync(E.M_FIX)
    asc.fixpipe(c_gm, c1, asc.FixpipeParamsV220(N, M, m1 * 16, N, 0))
    asc.fixpipe(c_gm[M * N :], c2, asc.FixpipeParamsV220(N, M, m1 * 16, N, 0))


def hf32(x, towards_zero):
    """float32 rounded to 11 mantissa bits: to nearest, ties to even or towards zero."""
    bits = np.asarray(x, np.float32).view(np.uint32).astype(np.int64)
    rest, kept = bits & 0xFFF, bits & ~0xFFF
    tie_up = (rest == 0x800) & (not towards_zero) & ((kept & 0x1000) != 0)
    kept = kept + np.where((rest > 0x800) | tie_up, 0x1000, 0)
    special = (bits & 0x7F800000) == 0x7F800000
    return np.where(special, bits, kept).astype(np.uint32).view(np.float32)


def run_f32(a, b, hf, trans, layout):
    m, k = a.shape
    n = b.shape[1]
    c = np.zeros(2 * m * n, np.float32)
    f32_gemm[1, rt.current_stream()](a, np.ascontiguousarray(b.T), c, m, n, k, hf, trans, layout)
    return c[: m * n].reshape(m, n), c[m * n :].reshape(m, n)


@pytest.mark.parametrize("m,n,k", [(16, 16, 8), (33, 20, 40), (64, 48, 24)])
@pytest.mark.parametrize("trans", [False, True])
def test_hf32_rounds_float32_inputs(m, n, k, trans, rng):
    a = rng.uniform(-3, 3, (m, k)).astype(np.float32)
    b = rng.uniform(-3, 3, (k, n)).astype(np.float32)
    with_mode, after = run_f32(a, b, True, trans, False)
    want = (hf32(a, trans).astype(np.float64) @ hf32(b, trans).astype(np.float64)).astype(np.float32)
    exact = (a.astype(np.float64) @ b.astype(np.float64)).astype(np.float32)
    np.testing.assert_allclose(with_mode, want, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(after, exact, rtol=1e-6, atol=1e-6)  # set_hf32_mode(False) ends it
    assert np.abs(with_mode - exact).max() > 1e-4  # the rounding is visible


def test_hf32_ties_follow_the_trans_mode():
    ties = 1.0 + np.array([1, 3, 5, 7, -1, -3] * 3, np.float64)[:16] * 2.0**-12  # halfway between two HF32 values
    a = np.zeros((16, 8), np.float32)
    a[:, 0] = ties * np.where(np.arange(16) % 2, -1, 1)
    b = np.zeros((8, 16), np.float32)
    b[0, :] = 1
    for trans in (False, True):
        c, _ = run_f32(a, b, True, trans, False)
        np.testing.assert_array_equal(c[:, 0], hf32(a[:, 0], trans))
    even, _ = run_f32(a, b, True, False, False)
    zero, _ = run_f32(a, b, True, True, False)
    assert (np.abs(zero[:, 0]) <= np.abs(even[:, 0])).all() and (zero[:, 0] != even[:, 0]).any()


def test_mm_layout_transform_keeps_the_values(rng):
    a = rng.uniform(-3, 3, (33, 40)).astype(np.float32)
    b = rng.uniform(-3, 3, (40, 20)).astype(np.float32)
    n_first, m_first = run_f32(a, b, False, False, True)
    np.testing.assert_array_equal(n_first, m_first)
    np.testing.assert_allclose(n_first, a.astype(np.float64) @ b, rtol=1e-6, atol=1e-6)


# ---- load_data with LoadData3DParamsV2 (img2col) -----------------------------------------------------------

# (channels, H, W, filter_h, filter_w, stride_h, stride_w, dilation_h, dilation_w, pad left/right/top/bottom)
GEOMETRIES = [
    (1, 8, 8, 1, 1, 1, 1, 1, 1, (0, 0, 0, 0)),
    (2, 6, 7, 3, 3, 1, 1, 1, 1, (1, 1, 1, 1)),
    (1, 9, 9, 2, 3, 2, 2, 1, 1, (0, 1, 2, 0)),
    (2, 10, 8, 3, 2, 1, 2, 2, 1, (2, 0, 1, 1)),
    (1, 12, 12, 3, 3, 3, 2, 2, 3, (1, 2, 0, 3)),
]


def im2col(fmap, geometry, pad_value):
    """The pseudo code's img2col: pad, slide the dilated window, rows oh * Wout + ow, columns (c1, kh, kw, c0)."""
    c1, h, w, c0 = fmap.shape
    _, _, _, fh, fw, sh, sw, dh, dw, (pl, pr, pt, pb) = geometry
    padded = np.full((c1, h + pt + pb, w + pl + pr, c0), pad_value, fmap.dtype)
    padded[:, pt : pt + h, pl : pl + w] = fmap
    hout = (h + pt + pb - (fh - 1) * dh - 1) // sh + 1
    wout = (w + pl + pr - (fw - 1) * dw - 1) // sw + 1
    rows = []
    for oh in range(hout):
        for ow in range(wout):
            window = padded[:, oh * sh + np.arange(fh)[:, None] * dh, ow * sw + np.arange(fw)[None, :] * dw, :]
            rows.append(window.reshape(-1))
    return np.array(rows)


@asc.jit(kernel_type=KernelType.AIC_ONLY)
def img2col_kernel(fm: asc.GlobalAddress, eye: asc.GlobalAddress, out: asc.GlobalAddress, pad: float, reg_pad: float,
                   G: asc.ConstExpr[tuple], BLOCK: asc.ConstExpr[tuple], DST: asc.ConstExpr[str],
                   TRANSPOSE: asc.ConstExpr[bool], SET_PAD: asc.ConstExpr[bool], REPEAT: asc.ConstExpr[tuple],
                   BOUNDARY: asc.ConstExpr[int], PRO: asc.ConstExpr[bool] = False):  # fmt: skip
    dtype = fm.dtype
    c0 = 32 // dtype.sizeof()
    channels, h, w, fh, fw, sh, sw, dh, dw, pads = G
    m_start, m_ext, k_start, k_ext = BLOCK
    times, stride, mode = REPEAT
    mt = times * m_ext if mode == 0 else m_ext
    kt = k_ext if mode == 0 else times * k_ext
    fm_gm, eye_gm, c_gm = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
    fm_gm.set_global_buffer(fm)
    eye_gm.set_global_buffer(eye)
    c_gm.set_global_buffer(out)
    count = channels * h * w
    pos = asc.TPosition.B1 if DST == "B2" else asc.TPosition.A1
    if BOUNDARY:  # the map's first bytes below the boundary at 1024, the rest from the start of L1
        src = asc.LocalTensor(dtype, pos, 1024, count)
        low = asc.LocalTensor(dtype, pos, 0, 1024 // dtype.sizeof())
        first = (BOUNDARY - 1024) // dtype.sizeof()
        asc.data_copy(src, fm_gm, first)
        asc.data_copy(low, fm_gm[first:], count - first)
        asc.set_load_data_boundary(BOUNDARY)
    else:
        src = asc.LocalTensor(dtype, pos, 0, count)
        asc.data_copy(src, fm_gm, count)
    sync(E.MTE2_MTE1)
    if not SET_PAD:
        asc.set_load_data_padding_value(reg_pad)
    if times != 1 or stride or mode:
        asc.set_load_data_repeat(asc.LoadDataRepeatParam(repeat_time=times, repeat_stride=stride, repeat_mode=mode))
    params = asc.LoadData3DParamsV2(pads, h, w, channels, k_ext, m_ext, k_start, m_start, sw, sh, fw, fh, dw, dh,
                                    TRANSPOSE, pad, False, False, False)  # fmt: skip
    if PRO:  # a V2 load of nothing sets the feature map and the padding; V2Pro packs the rest in two words
        nothing = asc.LoadData3DParamsV2(pads, h, w, channels, 0, 0, 0, 0, sw, sh, fw, fh, dw, dh, False, pad)
        asc.load_data(asc.LocalTensor(dtype, asc.TPosition.A2, 0, 256), src, nothing)
        ext = (m_start << 48) | (k_start << 32) | (m_ext << 16) | k_ext
        config = (dh << 40) | (dw << 32) | (fh << 24) | (fw << 16) | (sh << 8) | sw
        params = asc.LoadData3DParamsV2Pro(channels, TRANSPOSE, False, False, False, False, ext, config)
    acc = asc.int32 if dtype == asc.int8 else asc.float32
    c1 = asc.LocalTensor(acc, asc.TPosition.CO1, 0, 128 * 128)
    if DST == "B2":  # B (K = rows of the block, N = its columns) = I x B
        b2 = asc.LocalTensor(dtype, asc.TPosition.B2, 0, 128 * 128)
        asc.load_data(b2, src, params, is_set_padding=SET_PAD)
        a1 = asc.LocalTensor(dtype, asc.TPosition.A1, L1_HIGH, 128 * 128)
        a2 = asc.LocalTensor(dtype, asc.TPosition.A2, 0, 128 * 128)
        identity_a2(eye_gm, a1, a2, mt, c0)
        product_out(c_gm, c1, a2, b2, mt, kt, mt)
    else:
        a2 = asc.LocalTensor(dtype, asc.TPosition.A2, 0, 128 * 128)
        asc.load_data(a2, src, params, is_set_padding=SET_PAD)
        b1 = asc.LocalTensor(dtype, asc.TPosition.B1, L1_HIGH, 128 * 128)
        b2 = asc.LocalTensor(dtype, asc.TPosition.B2, 0, 128 * 128)
        rows, cols = (kt, mt) if TRANSPOSE else (mt, kt)
        identity_b2(eye_gm, b1, b2, cols, c0)
        product_out(c_gm, c1, a2, b2, rows, cols, cols)


def feature_map(rng, dtype, channels, h, w):
    c0 = 32 // np.dtype(dtype).itemsize
    shape = (channels, h, w, c0)
    if np.dtype(dtype) == np.int8:
        return rng.integers(-100, 100, shape).astype(np.int8)
    return rng.uniform(-4, 4, shape).astype(dtype)


def run_img2col(fmap, geometry, block, dst="A2", transpose=False, set_pad=True, pad=0.0, reg_pad=0.0,
                repeat=(1, 0, 0), boundary=0, pro=False):  # fmt: skip
    times, _, mode = repeat
    mt = times * block[1] if mode == 0 else block[1]
    kt = block[3] if mode == 0 else times * block[3]
    rows, cols = (kt, mt) if transpose and dst == "A2" else (mt, kt)
    eye = np.eye(cols if dst == "A2" else mt, dtype=fmap.dtype)
    acc = np.int32 if fmap.dtype == np.int8 else np.float32
    out = np.zeros(rows * cols, acc)
    img2col_kernel[1, rt.current_stream()](np.ascontiguousarray(fmap.ravel()), eye, out, pad, reg_pad,
                                           geometry, block, dst, transpose, set_pad, repeat, boundary, pro)  # fmt: skip
    return out.reshape(rows, cols)


def expected_block(fmap, geometry, block, pad, repeat=(1, 0, 0)):
    full = im2col(fmap, geometry, pad)
    m_start, m_ext, k_start, k_ext = block
    c0 = fmap.shape[-1]
    times, stride, mode = repeat
    parts = []
    for r in range(times):
        m0 = m_start + (r * stride * 16 if mode == 0 else 0)
        k0 = k_start + (r * stride * c0 if mode == 1 else 0)
        parts.append(full[m0 : m0 + m_ext, k0 : k0 + k_ext])
    return np.vstack(parts) if mode == 0 else np.hstack(parts)


def block_for(fmap, geometry, rng, c0):
    rows, cols = im2col(fmap, geometry, 0).shape
    m_ext = 16 * int(rng.integers(1, max(2, min(4, rows // 16) + 1)))
    m_ext = min(m_ext, rows // 16 * 16) or 16
    k_ext = c0 * int(rng.integers(1, min(4, cols // c0) + 1))
    m_start = int(rng.integers(0, rows - m_ext + 1))
    k_start = c0 * int(rng.integers(0, (cols - k_ext) // c0 + 1))
    return m_start, m_ext, k_start, k_ext


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.int8, ml_dtypes.bfloat16])
@pytest.mark.parametrize("geometry", GEOMETRIES)
def test_img2col_into_l0a(dtype, geometry, rng):
    channels = geometry[0] * (32 // np.dtype(dtype).itemsize)
    geometry = (channels,) + geometry[1:]
    fmap = feature_map(rng, dtype, channels // (32 // np.dtype(dtype).itemsize), geometry[1], geometry[2])
    pad = -7.0 if dtype != np.int8 else -7
    block = block_for(fmap, geometry, rng, fmap.shape[-1])
    got = run_img2col(fmap, geometry, block, pad=float(pad))
    np.testing.assert_array_equal(got, expected_block(fmap, geometry, block, pad).astype(got.dtype))


@pytest.mark.parametrize("dtype", [np.float16, np.float32])
@pytest.mark.parametrize("geometry", GEOMETRIES[1:4])
def test_img2col_transposed_into_l0a_and_into_l0b(dtype, geometry, rng):
    c0 = 32 // np.dtype(dtype).itemsize
    geometry = (geometry[0] * c0,) + geometry[1:]
    fmap = feature_map(rng, dtype, geometry[0] // c0, geometry[1], geometry[2])
    block = block_for(fmap, geometry, rng, c0)
    want = expected_block(fmap, geometry, block, 2.5).astype(np.float32)
    np.testing.assert_array_equal(run_img2col(fmap, geometry, block, transpose=True, pad=2.5), want.T)
    np.testing.assert_array_equal(run_img2col(fmap, geometry, block, dst="B2", pad=2.5), want)
    # into L0B the block is always transposed: en_transpose changes nothing
    np.testing.assert_array_equal(run_img2col(fmap, geometry, block, dst="B2", transpose=True, pad=2.5), want)


@pytest.mark.parametrize("transpose", [False, True])
def test_v2pro_packs_the_block_and_the_filter(transpose, rng):
    geometry = (32, 9, 9, 2, 3, 2, 1, 2, 1, (1, 0, 2, 1))
    fmap = feature_map(rng, np.float16, 2, 9, 9)
    block = block_for(fmap, geometry, rng, 16)
    want = expected_block(fmap, geometry, block, -3.0).astype(np.float32)
    got = run_img2col(fmap, geometry, block, transpose=transpose, pad=-3.0, pro=True)
    np.testing.assert_array_equal(got, want.T if transpose else want)


def test_padding_register_and_is_set_padding(rng):
    geometry = (16, 5, 5, 3, 3, 1, 1, 1, 1, (1, 1, 1, 1))
    fmap = feature_map(rng, np.float16, 1, 5, 5)
    block = (0, 16, 0, 32)
    want_reg = expected_block(fmap, geometry, block, 9.0).astype(np.float32)
    got = run_img2col(fmap, geometry, block, set_pad=False, pad=1.0, reg_pad=9.0)
    np.testing.assert_array_equal(got, want_reg)  # the register's value, not the params'
    got = run_img2col(fmap, geometry, block, set_pad=True, pad=1.0, reg_pad=9.0)
    np.testing.assert_array_equal(got, expected_block(fmap, geometry, block, 1.0).astype(np.float32))


@pytest.mark.parametrize("repeat", [(2, 1, 0), (3, 2, 0), (2, 1, 1), (3, 1, 1)])
def test_repeat_register_stacks_blocks(repeat, rng):
    geometry = (32, 10, 10, 2, 2, 1, 1, 1, 1, (0, 0, 0, 0))
    fmap = feature_map(rng, np.float16, 2, 10, 10)
    block = (0, 16, 16, 16)
    got = run_img2col(fmap, geometry, block, repeat=repeat)
    np.testing.assert_array_equal(got, expected_block(fmap, geometry, block, 0.0, repeat).astype(np.float32))


def test_boundary_wraps_reads_to_the_start_of_l1(rng):
    geometry = (16, 8, 8, 1, 1, 1, 1, 1, 1, (0, 0, 0, 0))
    fmap = feature_map(rng, np.float16, 1, 8, 8)  # 2048 bytes: half above address 1024, half wrapped to 0
    block = (0, 64, 0, 16)
    got = run_img2col(fmap, geometry, block, boundary=2048)
    np.testing.assert_array_equal(got, expected_block(fmap, geometry, block, 0.0).astype(np.float32))


# ---- errors ------------------------------------------------------------------------------------------------


@asc.jit(kernel_type=KernelType.AIC_ONLY)
def bad_kernel(x: asc.GlobalAddress, WHAT: asc.ConstExpr[str]):
    if WHAT == "init_position":
        asc.init_const_value(asc.LocalTensor(asc.float16, asc.TPosition.VECIN, 0, 256),
                             asc.InitConstValueParams(1, 1, 0, 1.0))  # fmt: skip
    elif WHAT == "init_dtype":
        asc.init_const_value(asc.LocalTensor(asc.int8, asc.TPosition.A1, 0, 256), asc.InitConstValueParams(1, 1, 0, 1))
    elif WHAT == "init_range":
        asc.init_const_value(asc.LocalTensor(asc.float16, asc.TPosition.A1, 0, 256),
                             asc.InitConstValueParams(40000, 1, 0, 1.0))  # fmt: skip
    elif WHAT == "init_params":
        asc.init_const_value(asc.LocalTensor(asc.float16, asc.TPosition.A1, 0, 256), asc.LoadData2DParams())
    elif WHAT == "sparse_dtype":
        asc.load_data_with_sparse(asc.LocalTensor(asc.float16, asc.TPosition.B2, 0, 256),
                                  asc.LocalTensor(asc.float16, asc.TPosition.B1, 0, 256),
                                  asc.LocalTensor(asc.uint8, asc.TPosition.B1, 1024, 256),
                                  asc.LoadData2DParams(0, 1))  # fmt: skip
    elif WHAT == "sparse_transpose":
        asc.load_data_with_sparse(asc.LocalTensor(asc.int8, asc.TPosition.B2, 0, 512),
                                  asc.LocalTensor(asc.int8, asc.TPosition.B1, 0, 512),
                                  asc.LocalTensor(asc.uint8, asc.TPosition.B1, 1024, 128),
                                  asc.LoadData2DParams(0, 1, if_transpose=True))  # fmt: skip
    elif WHAT == "mmad_sparse_dtype":
        asc.mmad_with_sparse(asc.LocalTensor(asc.float32, asc.TPosition.CO1, 0, 256),
                             asc.LocalTensor(asc.float16, asc.TPosition.A2, 0, 256),
                             asc.LocalTensor(asc.float16, asc.TPosition.B2, 0, 256),
                             asc.MmadParams(16, 16, 16))  # fmt: skip
    elif WHAT in ("v1", "channels", "l0b_int8", "boundary", "repeat_mode"):
        dtype = asc.int8 if WHAT == "l0b_int8" else asc.float16
        src = asc.LocalTensor(dtype, asc.TPosition.A1, 0, 4096)
        dst = asc.LocalTensor(dtype, asc.TPosition.B2 if WHAT == "l0b_int8" else asc.TPosition.A2, 0, 4096)
        params = asc.LoadData3DParamsV2((0, 0, 0, 0), 4, 4, 8 if WHAT == "channels" else 16, 16, 16)
        if WHAT == "v1":
            params = asc.LoadData3DParamsV1((0, 0, 0, 0), 16, 16, 0, 0, 0, 0, 0, 1, 1, 3, 3, 1, 1, 1, 0, 1, 0, 0)
        if WHAT == "v2pro":
            params = asc.LoadData3DParamsV2Pro(16, False, False, False, False, False, 0, 0x10101010101)
        if WHAT == "boundary":
            asc.set_load_data_boundary(100)
        if WHAT == "repeat_mode":
            asc.set_load_data_repeat(asc.LoadDataRepeatParam(1, 0, 2))
        asc.load_data(dst, src, params)


@pytest.mark.parametrize(
    "what,error,message",
    [
        ("init_position", asc.CodegenError, "dst must be a LocalTensor at TPosition.A1, B1 .L1., A2 .L0A. or B2"),
        ("init_dtype", asc.CodegenError, "int8"),
        ("init_range", asc.errors.KernelError, "repeat_times 40000, block_num 1 and dst_gap 0 must be 0..32767"),
        ("init_params", asc.CodegenError, "params must be an asc.InitConstValueParams"),
        ("sparse_dtype", asc.CodegenError, "dst and src must be int8"),
        ("sparse_transpose", asc.CodegenError, "does not transpose"),
        ("mmad_sparse_dtype", asc.CodegenError, "multiplies int8 x int8 into int32"),
        ("v1", asc.CodegenError, "LoadData3DParamsV1 is not available on Atlas A2"),
        ("channels", asc.errors.KernelError, "channel_size 8 is not a multiple of C0 = 16"),
        ("l0b_int8", asc.CodegenError, "L1 -> L0B does not move 1-byte types"),
        ("boundary", asc.errors.KernelError, "below the minimum 1024"),
        ("repeat_mode", asc.errors.KernelError, "repeat_mode 2 0 or 1"),
    ],
)
def test_bad_input_is_refused(what, error, message):
    with pytest.raises(error, match=message):
        bad_kernel[1, rt.current_stream()](np.zeros(8, np.float32), what)


@pytest.mark.parametrize("dtype", [np.float16, np.float32])
def test_img2col_into_l0a_of_a_partial_channel_group(dtype, rng):
    # k_extension not a multiple of C0: the last group of each row moves only its first columns
    c0 = 32 // np.dtype(dtype).itemsize
    geometry = GEOMETRIES[1]  # 2 channel groups, a 3 x 3 filter: 18 groups of columns
    geometry = (geometry[0] * c0,) + geometry[1:]
    fmap = feature_map(rng, dtype, geometry[0] // c0, geometry[1], geometry[2])
    m_start, m_ext, _, _ = block_for(fmap, geometry, rng, c0)
    block = (m_start, m_ext, 2 * c0, 3 * c0 + 3)
    got = run_img2col(fmap, geometry, block, pad=-7.0)
    np.testing.assert_array_equal(got, expected_block(fmap, geometry, block, -7.0).astype(got.dtype))


@asc.jit(kernel_type=KernelType.AIC_ONLY)
def band_in_two_parts(fm: asc.GlobalAddress, eye: asc.GlobalAddress, out: asc.GlobalAddress,
                      M_START: asc.ConstExpr[int], WAIT: asc.ConstExpr[bool]):  # fmt: skip
    # 2 channel groups of 8 rows x 16 columns (float32); a 3 x 3 filter: rows 0-3 of each group in L1 behind a
    # flag, rows 4-7 copied in after it, and the load of 16 output pixels from M_START waiting for them or not
    fm_gm, eye_gm, c_gm = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
    fm_gm.set_global_buffer(fm)
    eye_gm.set_global_buffer(eye)
    c_gm.set_global_buffer(out)
    src = asc.LocalTensor(asc.float32, asc.TPosition.A1, 0, 2 * 8 * 16 * 8)
    half = 4 * 16 * 8 * 4 // 32  # four rows of a group, in 32-byte blocks
    asc.data_copy(src, fm_gm, asc.DataCopyParams(2, half, half, half))
    sync(E.MTE2_MTE1)
    asc.data_copy(src[4 * 16 * 8 :], fm_gm[4 * 16 * 8 :], asc.DataCopyParams(2, half, half, half))
    asc.set_flag(E.MTE2_MTE1, 1)
    if WAIT:
        asc.wait_flag(E.MTE2_MTE1, 1)
    a2 = asc.LocalTensor(asc.float32, asc.TPosition.A2, 0, 16 * 16)
    # columns 64-79: group 0's last filter tap and group 1's first, so both groups' rows are read
    params = asc.LoadData3DParamsV2((0, 0, 0, 0), 8, 16, 16, 16, 16, 64, M_START, 1, 1, 3, 3, 1, 1, False, 0.0, False,
                                    False, False)  # fmt: skip
    asc.load_data(a2, src, params)
    if not WAIT:
        asc.wait_flag(E.MTE2_MTE1, 1)
    b1 = asc.LocalTensor(asc.float32, asc.TPosition.B1, L1_HIGH, 16 * 16)
    b2 = asc.LocalTensor(asc.float32, asc.TPosition.B2, 0, 16 * 16)
    identity_b2(eye_gm, b1, b2, 16, 8)
    c1 = asc.LocalTensor(asc.float32, asc.TPosition.CO1, 0, 16 * 16)
    product_out(c_gm, c1, a2, b2, 16, 16, 16)


def test_img2col_reads_only_its_rows_of_each_channel_group(rng):
    # the sanitizer takes a load to read its output rows' filter rows in each group it touches, not the whole map:
    # pixels 0-15 (output rows 0 and 1) read input rows 0-3, which were in L1 before the second copy began
    fmap = feature_map(rng, np.float32, 2, 8, 16)
    geometry = (16, 8, 16, 3, 3, 1, 1, 1, 1, (0, 0, 0, 0))
    eye = np.eye(16, dtype=np.float32)
    out = np.zeros((16, 16), np.float32)
    band_in_two_parts[1, rt.current_stream()](fmap.ravel(), eye, out, 0, False)
    np.testing.assert_array_equal(out, expected_block(fmap, geometry, (0, 16, 64, 16), 0.0))
    # pixels 28-43 (output rows 2 and 3) read rows 2-5: before the rows 4-5 copy is known done, a race; after, right
    with pytest.raises(asc.errors.RaceError, match="read-after-write race on L1 bytes.*load_data"):
        band_in_two_parts[1, rt.current_stream()](fmap.ravel(), eye, out, 28, False)
    band_in_two_parts[1, rt.current_stream()](fmap.ravel(), eye, out, 28, True)
    np.testing.assert_array_equal(out, expected_block(fmap, geometry, (28, 16, 64, 16), 0.0))
