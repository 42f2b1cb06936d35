"""compare / compare_scalar / select (count mode) against numpy: the bit masks
are little-endian within each byte (numpy's packbits with bitorder="little")."""

import numpy as np
import pytest

import asc
import asc.lib.runtime as rt

N = 1024


@asc.jit
def compare_select(x: asc.GlobalAddress, y: asc.GlobalAddress, bits: asc.GlobalAddress, z: asc.GlobalAddress,
                   scalar, count: int, MODE: asc.ConstExpr[int], SCALAR_CMP: asc.ConstExpr[bool],
                   SCALAR_SEL: asc.ConstExpr[bool]):  # fmt: skip
    x_gm = asc.GlobalTensor()
    y_gm = asc.GlobalTensor()
    m_gm = asc.GlobalTensor()
    z_gm = asc.GlobalTensor()
    x_gm.set_global_buffer(x, N)
    y_gm.set_global_buffer(y, N)
    m_gm.set_global_buffer(bits, N // 8)
    z_gm.set_global_buffer(z, N)
    a = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, N)
    b = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 4096, N)
    m = asc.LocalTensor(asc.uint8, asc.TPosition.VECCALC, 8192, N // 8)
    c = asc.LocalTensor(x.dtype, asc.TPosition.VECOUT, 12288, N)
    asc.data_copy(a, x_gm, N)
    asc.data_copy(b, y_gm, N)
    asc.duplicate(c, scalar, N)
    asc.set_flag(asc.HardEvent.MTE2_V, 0)
    asc.wait_flag(asc.HardEvent.MTE2_V, 0)
    if SCALAR_CMP:
        asc.compare_scalar(m, a, scalar, asc.CMPMODE(MODE), count)
    else:
        asc.compare(m, a, b, asc.CMPMODE(MODE), count)
    if SCALAR_SEL:
        asc.select(c, m, a, scalar, asc.SelMode.VSEL_TENSOR_SCALAR_MODE, count)
    else:
        asc.select(c, m, a, b, asc.SelMode.VSEL_TENSOR_TENSOR_MODE, count)
    asc.set_flag(asc.HardEvent.V_MTE3, 0)
    asc.wait_flag(asc.HardEvent.V_MTE3, 0)
    asc.data_copy(m_gm, m, count // 8)  # only the bits compare wrote
    asc.data_copy(z_gm, c, N)


OPS = [np.less, np.greater, np.equal, np.less_equal, np.greater_equal, np.not_equal]


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
@pytest.mark.parametrize("mode", range(6))
@pytest.mark.parametrize("scalar_cmp", [False, True])
@pytest.mark.parametrize("scalar_sel", [False, True])
def test_compare_then_select(dtype, mode, scalar_cmp, scalar_sel, rng):
    count = 512 if dtype == np.float16 else 256  # whole 256-byte repeats
    x = rng.integers(-4, 4, N).astype(dtype)  # small integers: plenty of equal pairs
    y = rng.integers(-4, 4, N).astype(dtype)
    scalar = 1.0
    bits = np.zeros(N // 8, np.uint8)
    z = np.zeros(N, dtype)
    compare_select[1, rt.current_stream()](x, y, bits, z, scalar, count, mode, scalar_cmp, scalar_sel)
    cond = OPS[mode](x[:count], dtype(scalar) if scalar_cmp else y[:count])
    want_bits = np.zeros(N // 8, np.uint8)
    want_bits[: count // 8] = np.packbits(cond, bitorder="little")
    np.testing.assert_array_equal(bits, want_bits)
    want = np.full(N, scalar, dtype)
    want[:count] = np.where(cond, x[:count], dtype(scalar) if scalar_sel else y[:count])
    np.testing.assert_array_equal(z, want)


def test_compare_needs_whole_repeats():
    x = np.zeros(N, np.float32)
    with pytest.raises(asc.errors.MisalignedError, match="not a whole number of 256-byte repeats"):
        compare_select[1, rt.current_stream()](x, x, np.zeros(N // 8, np.uint8), x.copy(), 0.0, 100, 0, False, False)
