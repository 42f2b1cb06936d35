"""asc.experimental.asctile (pyasc-dev's tile API) against numpy: kernels written in asctile's style —
copy_in / copy_out with tails, real_shape and pad_value, a row softmax, comparisons and where, bitwise
operators and pow, a matmul through L1 / L0A / L0B, reductions — on the Model; the names not on the Model
raising NotOnTheModelError; ASCTILE_INTERPRET=1 accepted."""

import os
import subprocess
import sys

import numpy as np
import pytest

import asc
import asc.experimental.asctile as asctile
import asc.lib.runtime as rt
from asc.errors import CodegenError


@asctile.jit
def vadd(x_ptr: asctile.GlobalAddress, y_ptr: asctile.GlobalAddress, out_ptr: asctile.GlobalAddress, size: int,
         tile: asctile.ConstExpr[int]):  # fmt: skip
    x_gm = asctile.global_tensor(x_ptr, [size])
    y_gm = asctile.global_tensor(y_ptr, [size])
    out_gm = asctile.global_tensor(out_ptr, [size])
    tiles = asctile.ceildiv(size, tile)
    for i in range(asctile.block_idx(), tiles, asctile.block_num(), gm_barrier=False):
        x = asctile.copy_in(x_gm, [i * tile], [tile])
        y = asctile.copy_in(y_gm, [i * tile], [tile])
        asctile.copy_out(x + y, out_gm, [i * tile])


@pytest.mark.parametrize("size,tile,cores", [(1000, 128, 4), (77, 32, 3)])
def test_vector_add_with_tails(size, tile, cores, rng):
    x = rng.random(size, dtype=np.float32)
    y = rng.random(size, dtype=np.float32)
    out = np.full(size + 8, -7, np.float32)  # past `size` nothing is written
    vadd[cores, rt.current_stream()](x, y, out[:size], size, tile)
    np.testing.assert_array_equal(out[:size], x + y)
    np.testing.assert_array_equal(out[size:], -7)


@asctile.jit
def window(x_ptr: asctile.GlobalAddress, out_ptr: asctile.GlobalAddress, h: int, w: int, r0: int, c0: int,
           rh: int, rw: int, th: asctile.ConstExpr[int], tw: asctile.ConstExpr[int],
           pad: asctile.ConstExpr[float], oh: int, ow: int):  # fmt: skip
    """A th x tw tile of x at (r0, c0) of which only rh x rw are read (the rest `pad`), written whole at
    (0, 0), and its first oh x ow elements written again at (th, tw) of a (2 th) x (2 tw) output."""
    x_gm = asctile.global_tensor(x_ptr, [h, w])
    out_gm = asctile.global_tensor(out_ptr, [2 * th, 2 * tw])
    t = asctile.copy_in(x_gm, [r0, c0], [th, tw], real_shape=[rh, rw], pad_value=pad)
    asctile.copy_out(t, out_gm, [0, 0])
    asctile.copy_out(t, out_gm, [th, tw], real_shape=[oh, ow])


@pytest.mark.parametrize("r0,c0,rh,rw,oh,ow,th,tw", [
    (0, 0, 5, 11, 16, 32, 16, 32), (3, 20, 16, 32, 7, 9, 16, 32), (30, 40, 2, 3, 0, 5, 16, 32),
    (50, 30, 400, 100, 300, 64, 512, 128),  # larger than the Unified Buffer: loaded and stored in chunks
])  # fmt: skip
def test_real_shape_and_pad_value(r0, c0, rh, rw, oh, ow, th, tw, rng):
    """real_shape limits what a copy_in reads (still clipped at the tensor's end) and a copy_out writes."""
    h, w, pad = (37, 50, -2.5) if th == 16 else (600, 200, 3.0)
    x = rng.random((h, w), dtype=np.float32)
    out = np.full((2 * th, 2 * tw), 9, np.float32)
    window[1, rt.current_stream()](x, out, h, w, r0, c0, rh, rw, th, tw, pad, oh, ow)
    want = np.full((th, tw), pad, np.float32)
    part = x[r0 : r0 + min(rh, th), c0 : c0 + min(rw, tw)]
    want[: part.shape[0], : part.shape[1]] = part
    np.testing.assert_array_equal(out[:th, :tw], want)
    expected_corner = np.full((th, tw), 9, np.float32)
    expected_corner[:oh, :ow] = want[:oh, :ow]
    np.testing.assert_array_equal(out[th:, tw:], expected_corner)
    np.testing.assert_array_equal(out[:th, tw:], 9)


@asctile.jit
def softmax_rows(x_ptr: asctile.GlobalAddress, out_ptr: asctile.GlobalAddress, rows: int, cols: int,
                 tile: asctile.ConstExpr[int]):  # fmt: skip
    x_gm = asctile.global_tensor(x_ptr, [rows, cols])
    out_gm = asctile.global_tensor(out_ptr, [rows, cols])
    for i in asctile.range(asctile.block_idx(), rows, asctile.block_num()):
        row = asctile.copy_in(x_gm, [i, 0], [1, tile], pad_value=float("-inf"))
        numerator = (row - row.max()).exp()
        asctile.copy_out(numerator / numerator.sum(), out_gm, [i, 0])


def test_softmax(rng):
    rows, cols = 37, 96
    x = rng.normal(0, 2, (rows, cols)).astype(np.float32)
    out = np.zeros_like(x)
    softmax_rows[4, rt.current_stream()](x, out, rows, cols, 128)
    e = np.exp(x - x.max(axis=1, keepdims=True))
    np.testing.assert_allclose(out, e / e.sum(axis=1, keepdims=True), rtol=2e-6, atol=1e-7)


@asctile.jit
def elementwise(x_ptr: asctile.GlobalAddress, y_ptr: asctile.GlobalAddress, i_ptr: asctile.GlobalAddress,
                j_ptr: asctile.GlobalAddress, out_ptr: asctile.GlobalAddress, bits_ptr: asctile.GlobalAddress,
                sums_ptr: asctile.GlobalAddress, n: asctile.ConstExpr[int]):  # fmt: skip
    """where / comparisons and mask logic, pow, bitwise operators on int32 and int16, reductions and a
    rounding mode, one kernel."""
    x = asctile.copy_in(asctile.global_tensor(x_ptr, [n]), [0], [n])
    y = asctile.copy_in(asctile.global_tensor(y_ptr, [n]), [0], [n])
    i = asctile.copy_in(asctile.global_tensor(i_ptr, [n]), [0], [n])
    j = asctile.copy_in(asctile.global_tensor(j_ptr, [n]), [0], [n])
    out = asctile.global_tensor(out_ptr, [7 * n])
    asctile.copy_out(asctile.where(x > y, x, y * 2.0), out, [0 * n])
    asctile.copy_out(asctile.where((x > 0.5) & (y < 0.5), 1.0, 0.0), out, [1 * n])
    asctile.copy_out(asctile.where(~(x > 0.5) | (y >= 0.75), x, -1.0), out, [2 * n])
    asctile.copy_out(x**2.0, out, [3 * n])
    asctile.copy_out(asctile.pow(x + 1.0, y), out, [4 * n])
    asctile.copy_out(x.to(asctile.int32, asctile.RoundMode.Floor).to(asctile.float32), out, [5 * n])
    asctile.copy_out(2.0**y, out, [6 * n])
    bits = asctile.global_tensor(bits_ptr, [6 * n])
    asctile.copy_out(i & j, bits, [0 * n])
    asctile.copy_out(i | 0x0F0F, bits, [1 * n])
    asctile.copy_out(i ^ j, bits, [2 * n])
    asctile.copy_out(~i, bits, [3 * n])
    asctile.copy_out((i.to(asctile.float32).to(asctile.int32) ^ 255) >> 1, bits, [4 * n])
    asctile.copy_out((j & 7) ** 3 - (i & 3), bits, [5 * n])
    sums = asctile.global_tensor(sums_ptr, [8])
    asctile.copy_out(x.sum(), sums, [0])
    asctile.copy_out(asctile.reduce_max(y), sums, [1])
    asctile.copy_out(x.min(), sums, [2])
    asctile.copy_out((x + 0.5).reshape(5, n // 5).prod(1), sums, [3])


def test_where_comparisons_bitwise_pow_reductions(rng):
    n = 200
    x = (rng.random(n, dtype=np.float32) * 4 - 1).astype(np.float32)
    y = rng.random(n, dtype=np.float32)
    x[:3] = [0.5, 1.0, -0.25]  # the rounding's edges
    i = rng.integers(-(2**31), 2**31, n, dtype=np.int64).astype(np.int32)
    j = rng.integers(-(2**31), 2**31, n, dtype=np.int64).astype(np.int32)
    out = np.zeros((7, n), np.float32)
    bits = np.zeros((6, n), np.int32)
    sums = np.zeros(8, np.float32)
    x[3:] = np.abs(x[3:]) * 0.5 + 0.75  # prod of (x + 0.5) stays finite: factors near 1
    elementwise[1, rt.current_stream()](x, y, i, j, out, bits, sums, n)
    np.testing.assert_array_equal(out[0], np.where(x > y, x, y * 2))
    np.testing.assert_array_equal(out[1], ((x > 0.5) & (y < 0.5)).astype(np.float32))
    np.testing.assert_array_equal(out[2], np.where(~(x > 0.5) | (y >= 0.75), x, -1))
    np.testing.assert_allclose(out[3], x.astype(np.float64) ** 2, rtol=1e-5)
    np.testing.assert_allclose(out[4], (x.astype(np.float64) + 1) ** y, rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(out[5], np.floor(x))
    np.testing.assert_allclose(out[6], 2.0 ** y.astype(np.float64), rtol=1e-5)
    np.testing.assert_array_equal(bits[0], i & j)
    np.testing.assert_array_equal(bits[1], i | 0x0F0F)
    np.testing.assert_array_equal(bits[2], i ^ j)
    np.testing.assert_array_equal(bits[3], ~i)
    ii = i.astype(np.float32).astype(np.int64)  # float32's rounding of i, truncated back (saturating)
    ii = np.clip(ii, -(2**31), 2**31 - 1).astype(np.int32)
    np.testing.assert_array_equal(bits[4], (ii ^ 255) >> 1)
    np.testing.assert_array_equal(bits[5], (j & 7) ** 3 - (i & 3))
    np.testing.assert_allclose(sums[:3], [x.sum(), y.max(), x.min()], rtol=1e-5)
    np.testing.assert_allclose(sums[3:], np.prod((x + 0.5).astype(np.float64).reshape(5, -1), axis=1), rtol=1e-5)


@asctile.jit
def mm(a_ptr: asctile.GlobalAddress, b_ptr: asctile.GlobalAddress, c_ptr: asctile.GlobalAddress,
       d_ptr: asctile.GlobalAddress, m: asctile.ConstExpr[int], k: asctile.ConstExpr[int],
       n: asctile.ConstExpr[int]):  # fmt: skip
    a_gm = asctile.global_tensor(a_ptr, [m, k])
    b_gm = asctile.global_tensor(b_ptr, [k, n])
    c_gm = asctile.global_tensor(c_ptr, [m, n])
    acc = asctile.zeros_acc([m, n], dtype=asctile.float32)
    a_l1 = asctile.copy_in(a_gm, [0, 0], [m, k], asctile.TensorLocation.L1)
    for kk in asctile.static_range(0, k, 32):
        b = asctile.copy_in(b_gm, [kk, 0], [32, n], "L1")
        a = asctile.copy(a_l1, [0, kk], [m, 32], asctile.TensorLocation.L0A)  # asctile's positional order
        asctile.matmul_acc(acc, a, b.to(asctile.TensorLocation.L0B))
    asctile.copy_out(acc, c_gm, [0, 0])
    first = a_l1.to("L0A") @ asctile.copy(asctile.copy_in(b_gm, [0, 0], [k, n], "L1"), location="L0B")
    asctile.copy_out(first, asctile.global_tensor(d_ptr, [m, n]), [0, 0])


def test_matmul(rng):
    m, k, n = 32, 64, 48
    a = rng.random((m, k), dtype=np.float32).astype(np.float16)
    b = rng.random((k, n), dtype=np.float32).astype(np.float16)
    c, d = np.zeros((2, m, n), np.float32)
    mm[1, rt.current_stream()](a, b, c, d, m, k, n)
    np.testing.assert_allclose(c, a.astype(np.float32) @ b.astype(np.float32), rtol=1e-3, atol=1e-3)
    np.testing.assert_allclose(d, c, rtol=1e-6)  # the same product by `@`, in one matmul


def test_host_helpers():
    assert asctile.ceildiv(1000, 128) == 8
    assert asctile.broadcast_shapes([4, 1], [3], [1, 1]) == (4, 3)
    with pytest.raises(CodegenError, match="do not broadcast"):
        asctile.broadcast_shapes([4, 2], [3])
    assert asctile.TensorLocation.UB == asc2_location("UB") and asctile.LocalTensor.__name__ == "Tile"


def asc2_location(name):
    import asc2

    return asc2.TileLocation[name]


# -- what is not on the Model, and misuse ----------------------------------------------------------------


@asctile.jit
def misuse(x_ptr: asctile.GlobalAddress, case: asctile.ConstExpr[int]):
    x_gm = asctile.global_tensor(x_ptr, [256])
    x = asctile.copy_in(x_gm, [0], [128])
    if case == 0:
        asctile.gather(x_gm, [0], 0, x)
    elif case == 1:
        asctile.scatter(x, 0, x, x_gm, [0])
    elif case == 2:
        _ = x.T
    elif case == 3:
        asctile.inline("AscendC::PipeBarrier<PIPE_ALL>();")
    elif case == 4:
        asctile.copy(x, location="L1", distrib=asctile.DistribMode.JoinByM)
    elif case == 5:
        asctile.static_assert(x.shape[0] == 64, "tiles of 64")
    elif case == 6:
        asctile.copy_in(x_gm, [0], [128], real_shape=[200])
    elif case == 7:
        asctile.copy_out(x, asctile.global_tensor(x_ptr, [256]), [0, 0])
    elif case == 8:
        x & x
    elif case == 9:
        asctile.copy_in(x_gm, [0], [128], "L1", real_shape=[64])
    elif case == 10:
        asctile.copy_in(x_gm, [0], [128], "L2")
    asctile.static_print("compiled case", case)


@pytest.mark.parametrize("case,match", [
    (0, r"asctile\.gather along the last dimension is not implemented"),
    (1, r"asctile\.scatter along the last dimension is not implemented"),
    (2, r"asc2\.transpose: Tile\(\[128\], float32\) has one axis; transpose swaps the last two"),
    (3, r"asctile\.inline is not on the Model yet"),
    (4, r"UB -> L1 is Ascend 950's path from the vector cores to the cube core; Ascend910B1 has none"),
    (5, r"static_assert failed: tiles of 64"),
    (6, r"real_shape \[200\] exceeds the tile's shape \[128\]"),
    (7, r"2 offsets for rank 1"),
    (8, r"asc2\.bitwise_and: integer tiles only .*got Tile\(\[128\], float32\)"),
    (9, r"real_shape is not supported for TensorLocation\.L1"),
    (10, r"no location 'L2'"),
])  # fmt: skip
def test_errors(case, match):
    x = np.zeros(256, np.float32)
    with pytest.raises(CodegenError, match=match) as info:
        misuse[1, rt.current_stream()](x, case)
    if case in (0, 1, 3):
        assert isinstance(info.value, asctile.NotOnTheModelError) and isinstance(info.value, NotImplementedError)
    assert "test_asctile.py" in str(info.value)  # the kernel's line is named


def test_static_print_and_cv_ratio(capsys):
    x = np.zeros(256, np.float32)
    misuse[1, rt.current_stream()](x, 99)
    assert "compiled case 99" in capsys.readouterr().out
    with pytest.raises(ValueError, match="cv_ratio is 1 or 2, got 3"):
        asctile.jit(cv_ratio=3)(lambda: None)


def test_interpret_switch_accepted(tmp_path):
    """ASCTILE_INTERPRET=1 is read as pyasc-dev reads it and changes nothing: the kernel still compiles for
    the Model and computes the same, without a warning."""
    code = (
        "import warnings, numpy as np\n"
        "warnings.simplefilter('error')\n"
        "import asc.lib.runtime as rt\n"
        "import asc.experimental.asctile as asctile\n"
        "assert asctile.interpreter_requested()\n"
        "@asctile.jit\n"
        "def k(x_ptr: asctile.GlobalAddress, n: int):\n"
        "    g = asctile.global_tensor(x_ptr, [n])\n"
        "    asctile.copy_out(asctile.copy_in(g, [0], [64]) * 2.0, g, [0])\n"
        "x = np.arange(50, dtype=np.float32)\n"
        "k[1, rt.current_stream()](x, 50)\n"
        "assert (x == 2 * np.arange(50)).all(), x\n"
        "print('ok')\n"
    )
    script = tmp_path / "interpret.py"
    script.write_text(code)
    env = dict(os.environ, ASCTILE_INTERPRET="1")
    result = subprocess.run([sys.executable, str(script)], env=env, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0 and result.stdout.strip() == "ok", result.stderr
    assert "Warning" not in result.stderr


def test_the_kernel_cache_covers_asctile():
    from asc.runtime import disk_cache

    roots = disk_cache.code_packages()
    here = os.path.dirname(asctile.__file__)
    assert any(here.startswith(os.path.join(r, "")) for r in roots)  # inside asc's own tree
    assert any(os.path.basename(r) == "asc2" for r in roots)  # what it builds on registers itself
    identity = disk_cache.library_identity().decode()
    for module in ("_ops.py", "_memory.py", "_tensors.py"):  # editing one changes every kernel's key
        assert os.path.join(here, module) + ":" in identity
    _ = asc


@asctile.jit
def low_level(x_ptr: asctile.GlobalAddress, h_ptr: asctile.GlobalAddress, out_ptr: asctile.GlobalAddress,
              hout_ptr: asctile.GlobalAddress, fail: asctile.ConstExpr[bool]):  # fmt: skip
    """to_asc / from_asc / empty around a basic instruction, broadcast_tensors, int16 bitwise, device_print
    and device_assert."""
    x_gm = asctile.global_tensor(x_ptr, [4, 64])
    x = asctile.copy_in(x_gm, [0, 0], [4, 64])
    row = asctile.copy_in(x_gm, [1, 0], [1, 64])
    big, wide = asctile.broadcast_tensors(x, row)
    scratch = asctile.empty_like(big)
    asc.adds(asctile.to_asc(scratch), asctile.to_asc(big), 1.0, scratch.size)  # a basic instruction on a tile
    raw = asc.LocalTensorAuto(asctile.float32, [4, 64])
    asc.muls(raw, asctile.to_asc(wide), 3.0, 256)
    out = asctile.global_tensor(out_ptr, [512])
    asctile.copy_out(scratch.ravel(), out, [0])
    asctile.copy_out(asctile.from_asc(raw).ravel(), out, [256])
    h = asctile.copy_in(asctile.global_tensor(h_ptr, [128]), [0], [128])
    hout = asctile.global_tensor(hout_ptr, [3, 128])
    asctile.copy_out((h & 0x7F0F).reshape(1, 128), hout, [0, 0])
    asctile.copy_out((h ^ h.to(asctile.float16).to(asctile.int16)).reshape(1, 128), hout, [1, 0])
    asctile.copy_out((~h | 3).reshape(1, 128), hout, [2, 0])
    part = asctile.copy_in(asctile.global_tensor(h_ptr, [128]), [0], [128], real_shape=[100], pad_value=7)
    asctile.copy_out(part, asctile.global_tensor(hout_ptr, [384]), [256], real_shape=[120])
    first = asctile.copy_in(x_gm, [0, 0])
    asctile.device_print("block", asctile.block_idx(), "first", first, "100%")
    asctile.device_assert(first < 100.0 if not fail else first > 100.0, "x[0, 0] is small")


def test_low_level_bitwise_and_debug(rng, capfd):
    x = rng.random((4, 64), dtype=np.float32)
    x[0, 0] = 0.25
    h = rng.integers(-(2**15), 2**15, 128).astype(np.int16)
    out = np.zeros((2, 4, 64), np.float32)
    hout = np.zeros((3, 128), np.int16)
    low_level[1, rt.current_stream()](x, h, out, hout, False)
    np.testing.assert_array_equal(out[0], x + 1)
    np.testing.assert_array_equal(out[1], np.broadcast_to(x[1] * 3, (4, 64)))
    np.testing.assert_array_equal(hout[0], h & 0x7F0F)
    np.testing.assert_array_equal(hout[1], h ^ h.astype(np.float16).astype(np.int16))
    np.testing.assert_array_equal(hout[2, :100], h[:100])  # a static real_shape: the first 100 of the 128 read,
    np.testing.assert_array_equal(hout[2, 100:120], 7)  # the rest is the padding; 120 of them written
    np.testing.assert_array_equal(hout[2, 120:], ~h[120:] | 3)
    assert "block 0 first 0.250000 100%" in capfd.readouterr().out
    with pytest.raises(Exception, match="trap|Trap") as info:
        low_level[1, rt.current_stream()](x, h, out, hout, True)
    assert "test_asctile.py" in str(info.value)
    assert "device_assert failed: x[0, 0] is small" in capfd.readouterr().out


@asctile.jit
def layer_norm_rows(x_ptr: asctile.GlobalAddress, g_ptr: asctile.GlobalAddress, b_ptr: asctile.GlobalAddress,
                    out_ptr: asctile.GlobalAddress, stats_ptr: asctile.GlobalAddress, rows: asctile.ConstExpr[int],
                    cols: asctile.ConstExpr[int]):  # fmt: skip
    x = asctile.copy_in(asctile.global_tensor(x_ptr, [rows, cols]), [0, 0], [rows, cols])
    g = asctile.copy_in(asctile.global_tensor(g_ptr, [cols]), [0], [cols])
    b = asctile.copy_in(asctile.global_tensor(b_ptr, [cols]), [0], [cols])
    out, mean, rstd = asctile.layer_norm(x, g, b, 1e-5)
    _, _, var = asctile.layer_norm(x, g, b, 1e-5, output_rstd=False)
    asctile.copy_out(out, asctile.global_tensor(out_ptr, [rows, cols]), [0, 0])
    stats = asctile.global_tensor(stats_ptr, [3 * rows])
    asctile.copy_out(mean, stats, [0])
    asctile.copy_out(rstd, stats, [rows])
    asctile.copy_out(var, stats, [2 * rows])


def test_layer_norm(rng):
    rows, cols = 6, 48
    x = rng.normal(1, 3, (rows, cols)).astype(np.float16)
    g, b = rng.normal(size=(2, cols)).astype(np.float16)
    out = np.zeros_like(x)
    stats = np.zeros(3 * rows, np.float32)
    layer_norm_rows[1, rt.current_stream()](x, g, b, out, stats, rows, cols)
    xf = x.astype(np.float64)
    mean, var = xf.mean(axis=1), xf.var(axis=1)
    want = (xf - mean[:, None]) / np.sqrt(var[:, None] + 1e-5) * g + b
    np.testing.assert_allclose(out.astype(np.float64), want, rtol=2e-3, atol=2e-3)
    np.testing.assert_allclose(stats, np.concatenate([mean, 1 / np.sqrt(var + 1e-5), var]), rtol=1e-5)
