"""fixpipe's quantising modes against a numpy model written from the Ascend C
documentation (随路量化): DEQF16 / VDEQF16 (int32 -> float16), REQ8 / VREQ8
(int32 -> int8 / uint8) and QF322B8_PRE / VQF322B8_PRE (float32 -> int8 /
uint8), scalar and per-column quant words, with and without ReLU, offsets,
the unsigned form and the int32 pre-shift; bad combinations are errors."""

import numpy as np
import pytest

import asc
import asc.lib.runtime as rt
from asc.runtime.config import KernelType

M, N, K = 32, 48, 32
Q = asc.QuantModes


def quant_word(scale, offset=0, signed=True, shift=None):
    """A QUANT_PRE word: scale as float32 bits (the fixpipe keeps 10 mantissa bits), a 9-bit offset, the
    sign bit and, with `shift`, the mode-control bit and N = shift - 1."""
    word = int(np.array([scale], np.float32).view(np.uint32)[0])
    word |= (offset & 0x1FF) << 37 | int(signed) << 46
    if shift is not None:
        word |= 1 << 36 | (shift - 1) << 32
    return word


def reference(c, mode, words, relu, out_dtype):
    """c: M x N int32 or float32 results; words: one quant word per column."""
    words = np.asarray(words, np.uint64)
    m1 = (words & np.uint64(0xFFFFE000)).astype(np.uint32).view(np.float32).astype(np.float32)
    m2 = np.zeros_like(m1) if relu else m1
    x = c.astype(np.int64)
    if c.dtype == np.int32:
        mcb = (words >> np.uint64(36)) & np.uint64(1)
        shift = ((words >> np.uint64(32)) & np.uint64(0xF)).astype(np.int64) + 1
        x = np.where(mcb.astype(bool), np.clip(x >> shift, -32768, 32767), x)
        x = x.astype(np.float32)
    else:
        x = c.astype(np.float32)
    x = np.where(x >= 0, x * m1, x * m2).astype(np.float32)
    if out_dtype == np.float16:
        return np.clip(x, -65504, 65504).astype(np.float16)
    offset = ((words >> np.uint64(37)) & np.uint64(0x1FF)).astype(np.int64)
    offset = np.where(offset >= 256, offset - 512, offset)
    q = np.clip(np.round(x), -256, 255) + offset
    signed = ((words >> np.uint64(46)) & np.uint64(1)).astype(bool)
    return np.where(signed, np.clip(q, -128, 127), np.clip(q, 0, 255)).astype(np.int64).astype(out_dtype)


@asc.jit(kernel_type=KernelType.AIC_ONLY)
def quantised_gemm(a: asc.GlobalAddress, bt: asc.GlobalAddress, c: asc.GlobalAddress, words: asc.GlobalAddress,
                   MODE: asc.ConstExpr[int], WORD: asc.ConstExpr[int], RELU: asc.ConstExpr[bool],
                   PER_COLUMN: asc.ConstExpr[bool]):  # fmt: skip
    """C = A x B (B given transposed, M x K and N x K) through L0C, out by fixpipe with quant_pre MODE: the
    scalar WORD, or (PER_COLUMN) the words array copied to L1."""
    a_gm, b_gm, c_gm, w_gm = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
    a_gm.set_global_buffer(a)
    b_gm.set_global_buffer(bt)
    c_gm.set_global_buffer(c)
    w_gm.set_global_buffer(words)
    c0 = 32 // a.dtype.sizeof()
    acc = asc.int32 if a.dtype == asc.int8 else asc.float32
    a1 = asc.LocalTensor(a.dtype, asc.TPosition.A1, 0, M * K)
    b1 = asc.LocalTensor(a.dtype, asc.TPosition.B1, 65536, N * K)
    w1 = asc.LocalTensor(asc.uint64, asc.TPosition.A1, 131072, N)
    a2 = asc.LocalTensor(a.dtype, asc.TPosition.A2, 0, M * K)
    b2 = asc.LocalTensor(a.dtype, asc.TPosition.B2, 0, N * K)
    c1 = asc.LocalTensor(acc, asc.TPosition.CO1, 0, M * N)
    asc.data_copy(a1, a_gm, asc.Nd2NzParams(1, M, K, 0, K, M, 1, 0))
    asc.data_copy(b1, b_gm, asc.Nd2NzParams(1, N, K, 0, K, N, 1, 0))
    if PER_COLUMN:
        asc.data_copy(w1, w_gm, N)
    asc.set_flag(asc.HardEvent.MTE2_MTE1, 0)
    asc.wait_flag(asc.HardEvent.MTE2_MTE1, 0)
    for i in range(M // 16):
        asc.load_data(a2[i * 16 * K :], a1[i * 16 * c0 :], asc.LoadData2DParams(0, K // c0, M // 16, 0, 0, False, 0))
    for kk in range(K // c0):
        asc.load_data(b2[kk * N * c0 :], b1[kk * N * c0 :], asc.LoadData2DParams(0, N // 16, 1, 0, 0, False, 0))
    asc.set_flag(asc.HardEvent.MTE1_M, 0)
    asc.wait_flag(asc.HardEvent.MTE1_M, 0)
    asc.mmad(c1, a2, b2, asc.MmadParams(M, N, K))
    asc.set_flag(asc.HardEvent.M_FIX, 0)
    asc.wait_flag(asc.HardEvent.M_FIX, 0)
    params = asc.FixpipeParamsV220(N, M, M, N, MODE, WORD, relu_en=RELU)
    if PER_COLUMN:
        asc.set_flag(asc.HardEvent.MTE2_FIX, 0)
        asc.wait_flag(asc.HardEvent.MTE2_FIX, 0)
        asc.fixpipe(c_gm, c1, w1, params)
    else:
        asc.fixpipe(c_gm, c1, params)


def run(mode, words, relu, per_column, in_dtype, out_dtype, rng):
    if in_dtype == np.int8:
        a = rng.integers(-128, 128, (M, K)).astype(np.int8)
        b = rng.integers(-128, 128, (K, N)).astype(np.int8)
        product = a.astype(np.int32) @ b.astype(np.int32)
    else:
        a = rng.uniform(-4, 4, (M, K)).astype(np.float16)
        b = rng.uniform(-4, 4, (K, N)).astype(np.float16)
        product = (a.astype(np.float64) @ b.astype(np.float64)).astype(np.float32)
    c = np.zeros((M, N), out_dtype)
    column_words = np.asarray(words if per_column else [words] * N, np.uint64)
    scalar = 0 if per_column else int(words)
    quantised_gemm[1, rt.current_stream()](a, np.ascontiguousarray(b.T), c, column_words, int(mode), scalar,
                                           relu, per_column)  # fmt: skip
    return c, reference(product, mode, column_words, relu, out_dtype)


# (mode, input dtype, output dtype, one column's word from a random scale)
CASES = [
    (Q.DEQF16, np.int8, np.float16, lambda r: quant_word(r.choice([2.0**-10, 0.0625, 1.5]))),
    (Q.DEQF16, np.int8, np.float16, lambda r: quant_word(2.0**-3, shift=r.integers(1, 9))),
    (Q.REQ8, np.int8, np.int8, lambda r: quant_word(2.0**-9 * r.uniform(0.5, 2), offset=int(r.integers(-20, 20)))),
    (Q.REQ8, np.int8, np.uint8, lambda r: quant_word(2.0**-8, offset=5, signed=False)),
    (Q.REQ8, np.int8, np.int8, lambda r: quant_word(0.25, shift=int(r.integers(2, 6)))),
    (Q.QF322B8_PRE, np.float16, np.int8, lambda r: quant_word(r.uniform(0.1, 2.0), offset=int(r.integers(-3, 3)))),
    (Q.QF322B8_PRE, np.float16, np.uint8, lambda r: quant_word(r.uniform(0.5, 3.0), signed=False)),
]  # fmt: skip
VECTOR = {Q.DEQF16: Q.VDEQF16, Q.REQ8: Q.VREQ8, Q.QF322B8_PRE: Q.VQF322B8_PRE}


@pytest.mark.parametrize("case", range(len(CASES)))
@pytest.mark.parametrize("relu", [False, True])
def test_scalar_quant_modes(case, relu, rng):
    mode, in_dtype, out_dtype, word = CASES[case]
    got, want = run(mode, word(rng), relu, False, in_dtype, out_dtype, rng)
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("case", range(len(CASES)))
@pytest.mark.parametrize("relu", [False, True])
def test_per_column_quant_modes(case, relu, rng):
    mode, in_dtype, out_dtype, word = CASES[case]
    words = [word(rng) for _ in range(N)]
    got, want = run(VECTOR[mode], words, relu, True, in_dtype, out_dtype, rng)
    np.testing.assert_array_equal(got, want)


def test_saturation_reaches_both_ends(rng):
    """int8 products scaled by 1/16 overflow int8 both ways: clipped, not wrapped."""
    got, want = run(Q.REQ8, quant_word(1 / 16), False, False, np.int8, np.int8, rng)
    assert got.min() == -128 and got.max() == 127
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize(
    "mode,per_column,out_dtype,message",
    [
        (Q.REQ8, False, np.float16, "quant_pre 7 does not turn int32 into float16"),
        (Q.VREQ8, False, np.int8, "takes one quant word per column"),
        (Q.REQ8, True, np.int8, "goes with VDEQF16, VQF322B8_PRE or VREQ8 only"),
    ],
)
def test_mode_errors(mode, per_column, out_dtype, message, rng):
    with pytest.raises(asc.errors.KernelError, match=message):
        run(mode, [quant_word(1.0)] * N if per_column else quant_word(1.0), False, per_column, np.int8, out_dtype,
            rng)  # fmt: skip
