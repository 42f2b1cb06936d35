"""insert_sync on Ascend 950 orders pipes with buffer tokens (get_buf / rls_buf around each access of a buffer), as
PyAsc2's compiler does there; on Atlas A2 it places event flags. Either way the results are numpy's and the
sanitizer sees every dependence ordered."""

import re
import warnings

import numpy as np
import pytest

import asc
import asc.lib.runtime as rt
import asc.runtime.config as config
import asc2
from asc._ffi import ffi, lib

from kernels import ascendc_source

TILE = 1024


@pytest.fixture
def on_950():
    config.set_platform(config.Backend.Model, config.Platform.Ascend950PR_9599)
    yield
    config.set_platform(config.Backend.Model, config.Platform.Ascend910B1)


@asc2.jit
def fma_tiles(x: asc.GlobalAddress, y: asc.GlobalAddress, z: asc.GlobalAddress, n: int, T: asc.ConstExpr[int]):
    xg, yg, zg = asc2.tensor(x, [n]), asc2.tensor(y, [n]), asc2.tensor(z, [n])
    for i in asc2.range(asc.get_block_idx(), n // T, asc.get_block_num()):
        a = asc2.load(xg, [T], offsets=[i * T])
        b = asc2.load(yg, [T], offsets=[i * T])
        asc2.store(a + b * a, zg, offsets=[i * T])


def run_strictly(kernel, blocks, *args):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a sync warning fails the test
        kernel[blocks, rt.current_stream()](*args)
    assert rt.last_launch_stats().warnings == ()


def ir_of(kernel, *args) -> str:
    return kernel.compile(*args).ir


def fma_args(rng, tiles=24):
    n = tiles * TILE
    x, y = rng.random((2, n), dtype=np.float32)
    return x, y, np.zeros_like(x), n


@pytest.mark.parametrize("platform", ["Ascend950PR_9599", "Ascend910B1"])
def test_an_asc2_kernel_is_ordered_by_tokens_on_950_and_by_flags_on_a2(platform, rng):
    config.set_platform(config.Backend.Model, getattr(config.Platform, platform))
    try:
        x, y, z, n = fma_args(rng)
        run_strictly(fma_tiles, 4, x, y, z, n, TILE)
        np.testing.assert_allclose(z, x + y * x, rtol=1e-6)
        ir = ir_of(fma_tiles, x, y, z, n, TILE)
    finally:
        config.set_platform(config.Backend.Model, config.Platform.Ascend910B1)
    tokens, flags = ir.count("get_buf "), ir.count("set_flag ")
    if platform.startswith("Ascend950"):
        assert tokens > 0 and flags == 0 and ir.count("rls_buf ") == tokens
    else:
        assert tokens == 0 and flags > 0


def test_tokens_keep_the_copies_overlapping_the_vector_work(rng):
    """Each tile of a double-buffered loop has ids of its own: MTE2 loads the next tile while V computes this one and
    MTE3 stores the last, as with flags on Atlas A2, so the launch takes well under the pipes' busy times added up."""
    x, y, z, n = fma_args(rng, tiles=64)
    overlap = {}
    for platform in (config.Platform.Ascend950PR_9599, config.Platform.Ascend910B1):  # tokens, then flags
        config.set_platform(config.Backend.Model, platform)
        fma_tiles[1, rt.current_stream()](x, y, z, n, TILE)
        stats = rt.last_launch_stats()
        serial = stats.busy_cycles["MTE2"] + stats.busy_cycles["V"] + stats.busy_cycles["MTE3"]
        overlap[platform] = stats.cycles / serial
    tokens, flags = overlap[config.Platform.Ascend950PR_9599], overlap[config.Platform.Ascend910B1]
    assert tokens < 0.95 and tokens < 1.05 * flags, overlap  # serialised pipes would make it 1 or more


@asc.jit(insert_sync=True)
def same_pipe_chain(x: asc.GlobalAddress, z: asc.GlobalAddress):
    """Two vector ops on the same three buffers, the second reading what the first wrote: they may not share one
    get_buf / rls_buf pair (a pipe does not order its own instructions' memory accesses)."""
    x_gm, z_gm = asc.GlobalTensor(), asc.GlobalTensor()
    x_gm.set_global_buffer(x, TILE)
    z_gm.set_global_buffer(z, TILE)
    a = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, TILE)
    b = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, 4 * TILE, TILE)
    c = asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, 8 * TILE, TILE)
    asc.data_copy(a, x_gm, TILE)
    asc.duplicate(b, 2.0, TILE)
    asc.add(c, a, b, TILE)  # c = x + 2
    asc.mul(a, c, b, TILE)  # a = 2x + 4: reads c, just written, on the same buffers
    asc.sub(c, a, b, TILE)  # c = 2x + 2
    asc.data_copy(z_gm, c, TILE)


def test_dependent_ops_of_one_pipe_get_pairs_of_their_own(on_950, rng):
    x = rng.random(TILE, dtype=np.float32)
    z = np.zeros_like(x)
    run_strictly(same_pipe_chain, 1, x, z)
    np.testing.assert_allclose(z, 2 * x + 2, rtol=1e-6)
    ir = ir_of(same_pipe_chain, x, z)
    body = ir[ir.index("add ") : ir.index("sub ")]
    assert "rls_buf" in body and "get_buf" in body  # between the add and the mul, and the mul and the sub


BUFFERS = 40  # more buffers than the 32 ids: ids are shared, which orders more but must not deadlock


@asc.jit(insert_sync=True)
def many_buffers(x: asc.GlobalAddress, z: asc.GlobalAddress):
    x_gm, z_gm = asc.GlobalTensor(), asc.GlobalTensor()
    x_gm.set_global_buffer(x, BUFFERS * 64)
    z_gm.set_global_buffer(z, BUFFERS * 64)
    for i in asc.static_range(BUFFERS):
        t = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, i * 256, 64)
        asc.data_copy(t, x_gm[i * 64 :], 64)
        asc.adds(t, t, float(i), 64)
        asc.data_copy(z_gm[i * 64 :], t, 64)


def test_more_buffers_than_ids_share_them_and_still_run(on_950, rng):
    x = rng.random(BUFFERS * 64, dtype=np.float32)
    z = np.zeros_like(x)
    run_strictly(many_buffers, 1, x, z)
    np.testing.assert_allclose(z, x + np.repeat(np.arange(BUFFERS, dtype=np.float32), 64), rtol=1e-6)
    ids = {int(v) for v in re.findall(r"value = (\d+)\} : i32[^\n]*\n\s*get_buf", ir_of(many_buffers, x, z))}
    assert ids == set(range(32))


@asc.jit(insert_sync=True)
def scalar_reads(x: asc.GlobalAddress, z: asc.GlobalAddress):
    x_gm, z_gm = asc.GlobalTensor(), asc.GlobalTensor()
    x_gm.set_global_buffer(x, 64)
    z_gm.set_global_buffer(z, 64)
    a = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, 0, 64)
    asc.data_copy(a, x_gm, 64)
    first = a.get_value(0)  # the scalar unit reads what MTE2 wrote
    asc.muls(a, a, first, 64)
    asc.data_copy(z_gm, a, 64)


def test_scalar_accesses_take_tokens_on_the_scalar_pipe(on_950, rng):
    x = rng.random(64, dtype=np.float32) + 1
    z = np.zeros_like(x)
    run_strictly(scalar_reads, 1, x, z)
    np.testing.assert_allclose(z, x * x[0], rtol=1e-6)
    assert "get_buf" in ir_of(scalar_reads, x, z).split("get_value")[0].rsplit("\n", 3)[-2]
    text = ascendc_source(scalar_reads.compile(x, z))
    assert re.search(r"get_buf\(PIPE_S, ", text) and "SetFlag" not in text


def test_the_kernel_reports_the_option_through_the_c_abi(on_950, rng):
    x, y, z, n = fma_args(rng, tiles=2)
    compiled = fma_tiles.compile(x, y, z, n, TILE)
    out = ffi.new("int64_t*")
    assert lib.asc_kernel_option(compiled.handle, b"buffer_tokens", len(b"buffer_tokens"), out) == lib.ASC_OK
    assert out[0] == 1
