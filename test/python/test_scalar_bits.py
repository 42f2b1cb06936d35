"""The scalar unit's conversion and bit counting (scalar_cast, scalar_get_sff_value, scalar_get_count_of_value,
scalar_count_leading_zero, count_bits_cnt_same_as_sign_bit) against Python references over generated values
and edge cases, on run-time scalars read from GM and on Python constants (pyasc's call shapes), the verifier's
errors, and the Ascend C they are emitted as."""

import numpy as np
import pytest

import asc
import asc.lib.runtime as rt
from asc.runtime.jit import MockTensor

from kernels import ascendc_source

M = asc.RoundMode
MASK = (1 << 64) - 1


# ---- Python references (the Ascend C documentation's definitions) ----------------------------------------


def sff(x, bit):
    x &= MASK
    for i in range(64):
        if (x >> i) & 1 == bit:
            return i
    return -1


def count_of_value(x, bit):
    ones = bin(x & MASK).count("1")
    return ones if bit else 64 - ones


def clz(x):
    x &= MASK
    return 64 - x.bit_length()


def same_as_sign(x):
    x &= MASK
    if x in (0, MASK):
        return -1
    sign, n = x >> 63, 0
    for i in range(62, -1, -1):
        if (x >> i) & 1 != sign:
            break
        n += 1
    return n


def to_int32(f, mode):
    f = float(np.float32(f))
    if np.isnan(f):
        return 0
    if mode == M.CAST_FLOOR:
        r = np.floor(f)
    elif mode == M.CAST_CEIL:
        r = np.ceil(f)
    elif mode == M.CAST_ROUND:
        r = np.sign(f) * np.floor(abs(f) + 0.5)  # ties away from zero
    else:
        r = np.rint(f)  # ties to even
    return int(min(max(r, -(2**31)), 2**31 - 1))


def to_half_odd(f):
    """Round to odd: truncate towards zero to half precision; when inexact set the last bit."""
    f = np.float64(np.float32(f))
    if np.isnan(f) or np.isinf(f):
        return np.float16(f)
    with np.errstate(over="ignore"):
        h = np.float16(f)
    if np.float64(h) == f:
        return h
    bits = int(np.array(h).view(np.uint16))
    if abs(np.float64(h)) > abs(f):  # the neighbour towards zero (inf -> 65504)
        bits -= 1
    return np.array(bits | 1, np.uint16).view(np.float16)[()]


# ---- values -----------------------------------------------------------------------------------------------

EDGE_BITS = [0, 1, 2, 28, 16, 0xFFFF, 0x0FFFFFFFFFFFFFFF, 0x0F00000000000000, 1 << 63, (1 << 63) - 1, MASK,
             MASK - 1, 0x8000000000000001, 0x5555555555555555, 0xAAAAAAAAAAAAAAAA]  # fmt: skip


def bit_values(rng):
    shifts = rng.integers(0, 64, 32, dtype=np.uint64)
    random = rng.integers(0, 2**64, 64, dtype=np.uint64, endpoint=False)
    return np.concatenate([np.array(EDGE_BITS, np.uint64), random, np.uint64(1) << shifts, random[:32] >> shifts])


def float_values(rng):
    ties = np.arange(-8, 8) + 0.5
    edge = [0.0, -0.0, 1.0, -1.0, 2.5, -2.5, 3.5, 0.4999999, 65504.0, 65519.0, 65520.0, 1e6, -1e6, 3e9, -3e9,
            2.0**31, -(2.0**31), np.inf, -np.inf, np.nan, 1e-8, -1e-8, 6e-5,
            1.0 + 2.0**-12, 1.0 + 3 * 2.0**-12]  # fmt: skip
    return np.concatenate([ties, edge, rng.uniform(-1000, 1000, 48), rng.uniform(-3, 3, 32)]).astype(np.float32)


# ---- run-time values --------------------------------------------------------------------------------------

BITS_PER_VALUE = 6


@asc.jit
def bits_kernel(x: asc.GlobalAddress, out: asc.GlobalAddress, n: int):
    x_gm, out_gm = asc.GlobalTensor(), asc.GlobalTensor()
    x_gm.set_global_buffer(x)
    out_gm.set_global_buffer(out)
    for i in range(n):
        v = x_gm.get_value(i)  # uint64
        out_gm.set_value(6 * i, asc.scalar_get_sff_value(v, 0))
        out_gm.set_value(6 * i + 1, asc.scalar_get_sff_value(v, count_value=1))
        out_gm.set_value(6 * i + 2, asc.scalar_get_count_of_value(v, 0))
        out_gm.set_value(6 * i + 3, asc.scalar_get_count_of_value(v, count_value=1))
        out_gm.set_value(6 * i + 4, asc.scalar_count_leading_zero(v))
        out_gm.set_value(6 * i + 5, asc.count_bits_cnt_same_as_sign_bit(asc.number(v, asc.int64)))


def test_bit_counting_on_run_time_values(rng):
    x = bit_values(rng)
    out = np.zeros(BITS_PER_VALUE * x.size, np.int64)
    bits_kernel[1, rt.current_stream()](x, out, x.size)
    want = []
    for v in (int(e) for e in x):
        want += [sff(v, 0), sff(v, 1), count_of_value(v, 0), count_of_value(v, 1), clz(v), same_as_sign(v)]
    np.testing.assert_array_equal(out, np.array(want, np.int64))


@asc.jit
def signed_kernel(x: asc.GlobalAddress, out: asc.GlobalAddress, n: int):
    x_gm, out_gm = asc.GlobalTensor(), asc.GlobalTensor()
    x_gm.set_global_buffer(x)
    out_gm.set_global_buffer(out)
    for i in range(n):
        v = x_gm.get_value(i)  # int32: sign-extended to 64 bits, as C++ converts it
        out_gm.set_value(3 * i, asc.count_bits_cnt_same_as_sign_bit(v))
        out_gm.set_value(3 * i + 1, asc.scalar_count_leading_zero(v))
        out_gm.set_value(3 * i + 2, asc.scalar_get_count_of_value(v, 1))


def test_narrower_integers_convert_as_cpp_does():
    x = np.array([0, -1, 1, -2, 5, -6, 2**31 - 1, -(2**31), 0x00F00000], np.int32)
    out = np.zeros(3 * x.size, np.int64)
    signed_kernel[1, rt.current_stream()](x, out, x.size)
    want = []
    for v in (int(e) for e in x):
        want += [same_as_sign(v), clz(v), count_of_value(v, 1)]
    np.testing.assert_array_equal(out, np.array(want, np.int64))


@asc.jit
def cast_kernel(x: asc.GlobalAddress, ints: asc.GlobalAddress, halves: asc.GlobalAddress, n: int):
    x_gm, ints_gm, halves_gm = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
    x_gm.set_global_buffer(x)
    ints_gm.set_global_buffer(ints)
    halves_gm.set_global_buffer(halves)
    for i in range(n):
        v = x_gm.get_value(i)
        ints_gm.set_value(4 * i, asc.scalar_cast(v, asc.int32, asc.RoundMode.CAST_RINT))
        ints_gm.set_value(4 * i + 1, asc.scalar_cast(v, asc.int32, asc.RoundMode.CAST_FLOOR))
        ints_gm.set_value(4 * i + 2, asc.scalar_cast(v, asc.int32, asc.RoundMode.CAST_CEIL))
        ints_gm.set_value(4 * i + 3, asc.scalar_cast(v, dtype=asc.int32, round_mode=asc.RoundMode.CAST_ROUND))
        halves_gm.set_value(i, asc.scalar_cast(v, asc.half, asc.RoundMode.CAST_ODD))


def test_scalar_cast_each_round_mode(rng):
    x = float_values(rng)
    ints, halves = np.zeros(4 * x.size, np.int32), np.zeros(x.size, np.float16)
    cast_kernel[1, rt.current_stream()](x, ints, halves, x.size)
    modes = [M.CAST_RINT, M.CAST_FLOOR, M.CAST_CEIL, M.CAST_ROUND]
    want = np.array([to_int32(v, m) for v in x for m in modes], np.int32)
    np.testing.assert_array_equal(ints, want)
    want_h = np.array([to_half_odd(v) for v in x], np.float16)
    np.testing.assert_array_equal(halves.view(np.uint16), want_h.view(np.uint16))


def test_round_to_odd_examples():
    # exact values stay; between two halves the result is the one with the odd last bit
    assert to_half_odd(1.0) == 1.0 and to_half_odd(2.5) == 2.5
    assert np.array(to_half_odd(1.0 + 2.0**-12)).view(np.uint16) == 0x3C01
    assert np.array(to_half_odd(1.0 + 3 * 2.0**-12)).view(np.uint16) == 0x3C01
    assert to_half_odd(1e6) == 65504.0 and to_half_odd(-1e6) == -65504.0


# ---- Python constants: pyasc's examples -------------------------------------------------------------------


@asc.jit
def constants_kernel(out: asc.GlobalAddress, h: asc.GlobalAddress):
    out_gm, h_gm = asc.GlobalTensor(), asc.GlobalTensor()
    out_gm.set_global_buffer(out)
    h_gm.set_global_buffer(h)
    out_gm.set_value(0, asc.scalar_get_sff_value(28, 0))
    out_gm.set_value(1, asc.scalar_get_sff_value(28, 1))
    out_gm.set_value(2, asc.scalar_get_count_of_value(16, 0))
    out_gm.set_value(3, asc.scalar_get_count_of_value(0xFFFF, 1))
    out_gm.set_value(4, asc.scalar_count_leading_zero(0x0FFFFFFFFFFFFFFF))
    out_gm.set_value(5, asc.count_bits_cnt_same_as_sign_bit(0x0F00000000000000))
    out_gm.set_value(6, asc.count_bits_cnt_same_as_sign_bit(0))
    out_gm.set_value(7, asc.count_bits_cnt_same_as_sign_bit(-1))
    out_gm.set_value(8, asc.scalar_cast(2.5, asc.int32, asc.RoundMode.CAST_ROUND))
    out_gm.set_value(9, asc.scalar_get_sff_value(-1, 0))  # a Python int by its low 64 bits: all ones
    out_gm.set_value(10, asc.scalar_count_leading_zero(0))
    out_gm.set_value(11, asc.scalar_get_sff_value(0, 1))
    h_gm.set_value(0, asc.scalar_cast(1.0 + 2.0**-12, asc.float16, asc.RoundMode.CAST_ODD))


def test_constants_give_the_documented_examples():
    out, h = np.zeros(12, np.int64), np.zeros(16, np.float16)
    constants_kernel[1, rt.current_stream()](out, h)
    np.testing.assert_array_equal(out, [0, 2, 63, 16, 4, 3, -1, -1, 3, -1, 64, -1])
    assert h.view(np.uint16)[0] == 0x3C01


# ---- errors and the Ascend C ------------------------------------------------------------------------------


@asc.jit
def bad_cast_kernel(out: asc.GlobalAddress, TO: asc.ConstExpr[int], MODE: asc.ConstExpr[int]):
    out_gm = asc.GlobalTensor()
    out_gm.set_global_buffer(out)
    out_gm.set_value(0, asc.scalar_cast(1.5, asc.half if TO == 16 else asc.int32, asc.RoundMode(MODE)))


@pytest.mark.parametrize("to,mode", [(16, M.CAST_RINT), (16, M.CAST_NONE), (32, M.CAST_ODD), (32, M.CAST_NONE),
                                     (32, M.CAST_TRUNC)])  # fmt: skip
def test_unsupported_round_modes_are_compile_errors(to, mode):
    with pytest.raises(asc.CodegenError, match="does not accept"):
        bad_cast_kernel[1, rt.current_stream()](np.zeros(8, np.float32), to, int(mode))


@asc.jit
def bad_bit_kernel(out: asc.GlobalAddress, BIT: asc.ConstExpr[int]):
    out_gm = asc.GlobalTensor()
    out_gm.set_global_buffer(out)
    out_gm.set_value(0, asc.scalar_get_sff_value(3, BIT))


def test_count_value_must_be_a_constant_bit():
    with pytest.raises(asc.CodegenError, match="count_value must be 0 or 1"):
        bad_bit_kernel[1, rt.current_stream()](np.zeros(4, np.int64), 2)


def test_python_wrappers_check_their_arguments():
    with pytest.raises(asc.CodegenError, match="asc.half .* or asc.int32"):
        bad_dtype_kernel[1, rt.current_stream()](np.zeros(4, np.int64))


@asc.jit
def bad_dtype_kernel(out: asc.GlobalAddress):
    out_gm = asc.GlobalTensor()
    out_gm.set_global_buffer(out)
    out_gm.set_value(0, asc.scalar_cast(1.5, asc.int64, asc.RoundMode.CAST_RINT))


def test_emitted_ascendc_spells_the_instructions():
    source = ascendc_source(bits_kernel.compile(MockTensor(asc.uint64), MockTensor(asc.int64), 4))
    for spelling in ("AscendC::ScalarGetSFFValue<0>(", "AscendC::ScalarGetSFFValue<1>(",
                     "AscendC::ScalarGetCountOfValue<0>(", "AscendC::ScalarGetCountOfValue<1>(",
                     "AscendC::ScalarCountLeadingZero(", "AscendC::CountBitsCntSameAsSignBit("):  # fmt: skip
        assert spelling in source, spelling
    source = ascendc_source(cast_kernel.compile(MockTensor(asc.float32), MockTensor(asc.int32),
                                                MockTensor(asc.float16), 4))  # fmt: skip
    for spelling in ("AscendC::ScalarCast<float, int32_t, AscendC::RoundMode::CAST_RINT>(",
                     "AscendC::ScalarCast<float, int32_t, AscendC::RoundMode::CAST_ROUND>(",
                     "AscendC::ScalarCast<float, half, AscendC::RoundMode::CAST_ODD>("):  # fmt: skip
        assert spelling in source, spelling
