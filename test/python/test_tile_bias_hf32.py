"""The bias table and HF32 in tile kernels, against numpy: asc2.matmul / asctile.matmul with a bias row
(loaded into BT directly, or into L1 and copied there), zeros_acc(bias=) as the start of a K loop, float16 /
bfloat16 / float32 rows widened to float32, rows whose length is not a whole 32 bytes; hf32=True rounding
float32 operands to HF32 (11 mantissa bits) for one product only; both generations; the errors."""

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
L0A, L0B, L1, BT = asc2.TileLocation.L0A, asc2.TileLocation.L0B, asc2.TileLocation.L1, asc2.TileLocation.BT


@asc2.jit
def biased(a_ptr: asc.GlobalAddress, b_ptr: asc.GlobalAddress, bias_ptr: asc.GlobalAddress,
           c_ptr: asc.GlobalAddress, m: asc.ConstExpr[int], k: asc.ConstExpr[int], n: asc.ConstExpr[int],
           tn: asc.ConstExpr[int], via_l1: asc.ConstExpr[bool]):  # fmt: skip
    """C = A x B + bias in one tile of tn >= n columns (past n: padding), the bias row loaded into BT, or into L1
    and given to matmul from there."""
    a = asc2.load(asc2.tensor(a_ptr, [m, k]), [m, k], offsets=[0, 0], location=L0A)
    b = asc2.load(asc2.tensor(b_ptr, [k, n]), [k, tn], offsets=[0, 0], location=L0B)
    bias = asc2.load(asc2.tensor(bias_ptr, [n]), [tn], offsets=[0], location=L1 if via_l1 else BT)
    asc2.store(asc2.matmul(a, b, bias), asc2.tensor(c_ptr, [m, n]), offsets=[0, 0])


def reference(a, b, bias=None):
    out = a.astype(np.float64) @ b.astype(np.float64)
    return out if bias is None else out + bias.astype(np.float64)


@pytest.mark.parametrize("platform", ["Ascend910B1", "Ascend950PR_9599"])
@pytest.mark.parametrize("dtype,bias_dtype", [(np.float16, np.float16), (BF16, BF16), (np.float32, np.float32),
                                              (np.float16, np.float32), (np.float32, BF16)])  # fmt: skip
@pytest.mark.parametrize("m,k,n,tn,via_l1", [(32, 64, 48, 48, False), (16, 32, 40, 48, True)])
def test_matmul_adds_the_bias_row(platform, dtype, bias_dtype, m, k, n, tn, via_l1, rng):
    """Every row of the product gets the bias (n = 40: a row of 80 or 160 bytes, not whole 64-byte runs, read
    into a tile of 48)."""
    config.set_platform(config.Backend.Model, platform)
    a = rng.uniform(-2, 2, (m, k)).astype(dtype)
    b = rng.uniform(-2, 2, (k, n)).astype(dtype)
    bias = rng.uniform(-50, 50, n).astype(bias_dtype)
    c = np.full((m, n), 7, np.float32)
    biased[1, rt.current_stream()](a, b, bias, c, m, k, n, tn, via_l1)
    np.testing.assert_allclose(c, reference(a, b, bias), rtol=1e-5, atol=1e-4)
    assert np.abs(c - reference(a, b)).min() > 1e-3  # the bias is there (no bias value is this small)


@asctile.jit
def k_loop(a_ptr: asctile.GlobalAddress, b_ptr: asctile.GlobalAddress, bias_ptr: asctile.GlobalAddress,
           c_ptr: asctile.GlobalAddress, m: asctile.ConstExpr[int], k: asctile.ConstExpr[int],
           n: asctile.ConstExpr[int], tk: asctile.ConstExpr[int]):  # fmt: skip
    """asctile's documented pattern: the accumulator starts at the bias, K summed tk at a time."""
    a_l1 = asctile.copy_in(asctile.global_tensor(a_ptr, [m, k]), [0, 0], [m, k], asctile.TensorLocation.L1)
    b_l1 = asctile.copy_in(asctile.global_tensor(b_ptr, [k, n]), [0, 0], [k, n], "L1")
    bias_l1 = asctile.copy_in(asctile.global_tensor(bias_ptr, [n]), [0], [n], "L1")
    bias = asctile.copy(bias_l1, [0], [n], asctile.TensorLocation.BT)
    acc = asctile.zeros_acc([m, n], dtype=asctile.float32, bias=bias)
    for kk in asctile.static_range(0, k, tk):
        a = asctile.copy(a_l1, [0, kk], [m, tk], asctile.TensorLocation.L0A)
        b = asctile.copy(b_l1, [kk, 0], [tk, n], asctile.TensorLocation.L0B)
        asctile.matmul_acc(acc, a, b)
    asctile.copy_out(acc, asctile.global_tensor(c_ptr, [m, n]), [0, 0])


def test_zeros_acc_starts_at_the_bias(rng):
    m, k, n = 48, 96, 64
    a = rng.uniform(-1, 1, (m, k)).astype(np.float16)
    b = rng.uniform(-1, 1, (k, n)).astype(np.float16)
    bias = rng.uniform(-9, 9, n).astype(np.float16)
    c = np.zeros((m, n), np.float32)
    k_loop[1, rt.current_stream()](a, b, bias, c, m, k, n, 32)
    np.testing.assert_allclose(c, reference(a, b, bias), rtol=1e-5, atol=1e-4)


def hf32(x):
    """float32 to HF32 by hand: 12 significant bits (11 stored), to nearest with ties to even."""
    mantissa, exponent = np.frexp(x.astype(np.float64))  # mantissa in [0.5, 1): 24 significant bits
    return np.ldexp(np.round(mantissa * 2.0**12) / 2.0**12, exponent)


@asctile.jit
def hf32_products(a_ptr: asctile.GlobalAddress, b_ptr: asctile.GlobalAddress, c_ptr: asctile.GlobalAddress,
                  d_ptr: asctile.GlobalAddress, e_ptr: asctile.GlobalAddress, m: asctile.ConstExpr[int],
                  k: asctile.ConstExpr[int], n: asctile.ConstExpr[int]):  # fmt: skip
    """c = A x B with hf32, d = A x B without (the mode lasts one product), e = 0 + A x B accumulated in hf32."""
    a = asctile.copy_in(asctile.global_tensor(a_ptr, [m, k]), [0, 0], [m, k], "L0A")
    b = asctile.copy_in(asctile.global_tensor(b_ptr, [k, n]), [0, 0], [k, n], "L0B")
    asctile.copy_out(asctile.matmul(a, b, hf32=True), asctile.global_tensor(c_ptr, [m, n]), [0, 0])
    asctile.copy_out(a @ b, asctile.global_tensor(d_ptr, [m, n]), [0, 0])
    acc = asctile.zeros_acc([m, n], asctile.float32)
    asctile.matmul_acc(acc, a, b, hf32=True)
    asctile.copy_out(acc, asctile.global_tensor(e_ptr, [m, n]), [0, 0])


def test_hf32_rounds_the_operands_of_one_product(rng):
    m, k, n = 16, 32, 32
    a = rng.uniform(-2, 2, (m, k)).astype(np.float32)
    b = rng.uniform(-2, 2, (k, n)).astype(np.float32)
    c, d, e = np.zeros((3, m, n), np.float32)
    hf32_products[1, rt.current_stream()](a, b, c, d, e, m, k, n)
    rounded = reference(hf32(a), hf32(b))
    np.testing.assert_allclose(c, rounded, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(e, rounded, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(d, reference(a, b), rtol=1e-6, atol=1e-6)
    assert np.abs(c - d).max() > 1e-4  # HF32 made a difference these tolerances see


@asctile.jit
def misuse(x_ptr: asctile.GlobalAddress, h_ptr: asctile.GlobalAddress, case: asctile.ConstExpr[int]):
    v_gm = asctile.global_tensor(x_ptr, [256])
    m_gm = asctile.global_tensor(x_ptr, [16, 16])
    if case == 0:
        asctile.zeros_acc([16, 64], asctile.float32, bias=asctile.copy_in(v_gm, [0], [128], "BT"))
    elif case == 1:
        asctile.zeros_acc([16, 128], asctile.float32, bias=asctile.copy_in(v_gm, [0], [128]))
    elif case == 2:
        asctile.copy_in(m_gm, [0, 0], [16, 16], "BT")
    elif case == 3:
        h_gm = asctile.global_tensor(h_ptr, [16, 16])
        asctile.matmul(
            asctile.copy_in(h_gm, [0, 0], [16, 16], "L0A"), asctile.copy_in(h_gm, [0, 0], [16, 16], "L0B"), hf32=True
        )
    elif case == 4:
        asctile.copy(asctile.copy_in(v_gm, [0], [128], "L1"), [8], [64], "BT")


@pytest.mark.parametrize("case,match", [
    (0, r"asc2\.zeros_acc: the bias has one value per output column: \[64\], got \[128\]"),
    (1, r"asc2\.zeros_acc: bias is a 1-D tile loaded with location=asc2\.TileLocation\.BT \(or L1\), got "
        r"Tile\(\[128\], float32\)"),
    (2, r"a bias-table tile is 1-D \(one value per output column\), got \[16, 16\]"),
    (3, r"hf32=True rounds float32 operands, these are float16"),
    (4, r"the bias offset must be a multiple of 16"),
])  # fmt: skip
def test_errors(case, match):
    x = np.zeros(256, np.float32)
    with pytest.raises(CodegenError, match=match) as info:
        misuse[1, rt.current_stream()](x, np.zeros(256, np.float16), case)
    assert "test_tile_bias_hf32.py" in str(info.value)  # the kernel's line is named
