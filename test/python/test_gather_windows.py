"""The operator API's gathers on the vector unit (pyasc.gather_plan, kernels.gather_windows) against numpy:
tables with FILL and SKIP entries, accumulating ones, a destination that is not a whole number of tiles, a
table whose tiles read too many windows (the scalar kernel then), float16 and float32; the plan's windows
themselves; the tutorial's conv2d operator, whose gathers now take this path; and small pooling windows
gathered one 32-byte block each and reduced by BlockReduceMax."""

import numpy as np
import pytest
from pyasc_ops import conv2d, max_pool2d

import asc.lib.runtime as rt
import pyasc
import pyasc.conv
import pyasc.gather_plan as gather_plan
import pyasc.kernels as kernels
import pyasc.steps as steps


def reference(dst, src, table, fill, accumulate):
    out = dst.copy()
    picked = table >= 0
    if accumulate:
        out[picked] += src[table[picked]]
    else:
        out[picked] = src[table[picked]]
        out[table == kernels.FILL] = fill
    return out


def local_table(rng, n, src_n, per_tile=512):
    """Indices that stay within a few windows per tile: a random base per 512 entries, offsets below 3000."""
    table = rng.integers(0, 3000, n) + (np.arange(n) // per_tile) * ((src_n - 3000) // max(1, n // per_tile))
    return table.astype(np.int64)


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
@pytest.mark.parametrize("n", [5000, 4096, 300])
@pytest.mark.parametrize("accumulate", [False, True])
def test_the_vector_gather_equals_numpy(dtype, n, accumulate, rng):
    src = rng.standard_normal(60000).astype(dtype)
    table = local_table(rng, n, src.size)
    table[::11] = kernels.SKIP
    if not accumulate:
        table[::7] = kernels.FILL
    table = table.astype(np.int32)
    dst = rng.standard_normal(n).astype(dtype)
    want = reference(dst, src, table, 2.5, accumulate)
    launch = steps._gather_launch(dst, src, table, 2.5 if not accumulate else 0.0, accumulate)
    assert launch.kernel is kernels.gather_windows
    launch.kernel[launch.cores, rt.current_stream()](*launch.args)
    np.testing.assert_allclose(dst.astype(np.float64), want.astype(np.float64), rtol=1e-3 if dtype == np.float16 else 0)


def test_a_table_reading_everywhere_takes_the_scalar_kernel(rng):
    src = rng.standard_normal(200000).astype(np.float32)
    table = rng.integers(0, src.size, 3000).astype(np.int32)  # each tile reads from all over the source
    assert gather_plan.plan(table, 4, False) is None
    dst = np.zeros(3000, np.float32)
    launch = steps._gather_launch(dst, src, table, 0.0)
    assert launch.kernel is kernels.gather
    launch.kernel[launch.cores, rt.current_stream()](*launch.args)
    np.testing.assert_array_equal(dst, src[table])


def test_accumulating_with_fill_entries_takes_the_scalar_kernel():
    table = np.array([0, kernels.FILL, 1], np.int32)  # the scalar kernel overwrites a FILL entry: no addition
    assert gather_plan.plan(table, 4, True) is None


def test_the_windows_cover_each_tile_and_start_on_blocks(rng):
    table = local_table(rng, 6000, 60000).astype(np.int32)
    table[::5] = kernels.FILL
    p = gather_plan.plan(table, 2, False)
    assert p is not None and p.tiles == -(-table.size // p.tile)
    starts = p.starts.astype(np.int64)
    assert ((starts[starts >= 0] * 2) % 32 == 0).all()  # a window starts on a 32-byte block of the source
    element = p.offsets.astype(np.int64).reshape(p.tiles, p.tile)[:, :] // 2
    padded = np.full(p.tiles * p.tile, kernels.FILL, np.int64)
    padded[: table.size] = table
    rows = padded.reshape(p.tiles, p.tile)
    window, inside = element // gather_plan.WINDOW, element % gather_plan.WINDOW
    picked = rows >= 0
    source = np.take_along_axis(starts, np.minimum(window, gather_plan.WINDOWS - 1), axis=1) + inside
    np.testing.assert_array_equal(source[picked], rows[picked])  # every entry finds its element
    assert (element[~picked] == gather_plan.WINDOWS * gather_plan.WINDOW).all()  # FILL reads the fill block


def test_a_convolution_gathers_on_the_vector_unit(rng, monkeypatch):
    made = []

    def recorded(*args, **kwargs):
        made.append(launch := gather_launch(*args, **kwargs))
        return launch

    gather_launch = steps._gather_launch
    monkeypatch.setattr(steps, "_gather_launch", recorded)
    monkeypatch.setattr(pyasc.conv, "ENABLED", False)  # convolutions now take the cube's img2col path
    op = pyasc.register(conv2d.fn, name="Conv2dThroughGathers")  # a plan of its own
    x = rng.standard_normal((1, 3, 32, 32)).astype(np.float32)
    w = rng.standard_normal((16, 3, 3, 3)).astype(np.float32)  # 16 filters: the product needs no padding rows
    out = op(x, w, stride=2, padding=1)
    xp = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
    windows = np.lib.stride_tricks.sliding_window_view(xp, (3, 3), axis=(2, 3))[:, :, ::2, ::2]
    want = np.einsum("ncijab,fcab->nfij", windows, w)
    np.testing.assert_allclose(out, want, rtol=1e-4, atol=1e-4)
    assert made and all(launch.kernel is kernels.gather_windows for launch in made)
    assert len(made) == 2  # input and weight: the product is computed in the output's layout, not scattered


@pyasc.operator("TransposedProduct")
def transposed_product(a, b, out):
    M, K = a.shape
    _, N = b.shape
    for j in range(N):
        for i in range(M):
            s = 0.0
            for k in range(K):
                s += a[i, k] * b[k, j]
            out[j, i] = s


def test_a_product_stored_transposed_is_computed_transposed(rng):
    a = rng.standard_normal((48, 40)).astype(np.float32)
    b = rng.standard_normal((40, 32)).astype(np.float32)
    out = np.zeros((32, 48), np.float32)
    transposed_product(a, b, out)
    np.testing.assert_allclose(out, (a @ b).T, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("dtype,k,stride,blocked",
                         [(np.float32, 2, 1, True), (np.float16, 3, 2, True), (np.float32, 3, 2, False)])  # fmt: skip
def test_windows_that_fit_a_block_reduce_by_blocks(dtype, k, stride, blocked, rng, monkeypatch):
    """k x k windows of float32 (8 to a block) or float16 (16): BlockReduceMax over one block per window; 3 x 3
    float32 windows (9 values) keep the row reduction. (2 x 2 at stride 2 takes the structured path:
    test_pair_pool.py.)"""
    used = []
    launches = steps.WindowReduceStep.launches

    def recorded(self, arrays):
        out = launches(self, arrays)
        used.extend(launch.kernel for launch in out)
        return out

    monkeypatch.setattr(steps.WindowReduceStep, "launches", recorded)
    x = rng.standard_normal((1, 3, 20, 20)).astype(dtype)
    o = (20 - k) // stride + 1
    out = np.zeros((1, 3, o, o), dtype)
    max_pool2d(x, out, kernel_size=k, stride=stride)
    windows = np.lib.stride_tricks.sliding_window_view(x, (k, k), axis=(2, 3))[:, :, ::stride, ::stride][:, :, :o, :o]
    np.testing.assert_array_equal(out, windows.max(axis=(4, 5)))
    assert (kernels.reduce_blocks in used) == blocked and (kernels.reduce_rows in used) != blocked
