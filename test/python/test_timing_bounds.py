"""The Model's clock never beats physics: across copy, add, row reductions and matmuls, from one tile to tens of
megabytes and from one core to all of them, no estimate moves GM bytes faster than HBM (the bytes L2's write-back
holds aside: at L2's bandwidth), moves one core's bytes faster than its MTE engines, or computes faster than the
vector units and cubes can (docs/profiling.md).

The figures are Ascend910B1's as published (src/target/platform.cpp cites them): 48 vector and 24 cube cores at
1.85 GHz, HBM at 1.6 TB/s, 256 bytes per vector core per cycle, 16 x 16 x 16 float16 MACs per cube per cycle. The
MTE engine's 128 bytes per cycle is the Model's table figure (an estimate)."""

import numpy as np
import pytest

import asc
import asc.lib.runtime as rt
import asc2

pytestmark = pytest.mark.timing_only  # up to tens of megabytes per kernel: not in the sanitizer run (conftest.py)

CLOCK = 1.85e9
HBM = 1.6e12  # bytes per second, all cores together
AIV, AIC = 48, 24
VECTOR_BYTES = 256  # per vector core per cycle
CUBE_MACS = 16 * 16 * 16  # float16, per cube per cycle
MTE_BYTES = 128  # per engine per cycle
TILE = 4096


@asc2.jit
def copy(x: asc.GlobalAddress, z: asc.GlobalAddress, n: int, T: asc.ConstExpr[int]):
    xg, zg = asc2.tensor(x, [n]), asc2.tensor(z, [n])
    for i in asc2.range(asc.get_block_idx(), n // T, asc.get_block_num()):
        asc2.store(asc2.load(xg, [T], offsets=[i * T]), zg, offsets=[i * T])


@asc2.jit
def add(x: asc.GlobalAddress, y: asc.GlobalAddress, z: asc.GlobalAddress, n: int, T: asc.ConstExpr[int]):
    xg, yg, zg = asc2.tensor(x, [n]), asc2.tensor(y, [n]), asc2.tensor(z, [n])
    for i in asc2.range(asc.get_block_idx(), n // T, asc.get_block_num()):
        asc2.store(asc2.load(xg, [T], offsets=[i * T]) + asc2.load(yg, [T], offsets=[i * T]), zg, offsets=[i * T])


@asc2.jit
def row_sums(x: asc.GlobalAddress, z: asc.GlobalAddress, rows: int, C: asc.ConstExpr[int]):
    xg, zg = asc2.tensor(x, [rows, C]), asc2.tensor(z, [rows])
    for r in asc2.range(asc.get_block_idx(), rows // 8, asc.get_block_num()):
        asc2.store(asc2.load(xg, [8, C], offsets=[r * 8, 0]).sum(1), zg, offsets=[r * 8])


BM = BN = 128
BK = 64


@asc2.jit
def matmul(a: asc.GlobalAddress, b: asc.GlobalAddress, c: asc.GlobalAddress, S: asc.ConstExpr[int]):
    ag, bg, cg = asc2.tensor(a, [S, S]), asc2.tensor(b, [S, S]), asc2.tensor(c, [S, S])
    tiles_n = S // BN
    for t in asc2.range(asc.get_block_idx(), (S // BM) * tiles_n, asc.get_block_num()):
        m, n = t // tiles_n, t % tiles_n
        acc = asc2.zeros_acc([BM, BN], dtype=asc.float32)
        for k in range(S // BK):
            a_t = asc2.load(ag, [BM, BK], offsets=[m * BM, k * BK], location=asc2.TileLocation.L0A)
            b_t = asc2.load(bg, [BK, BN], offsets=[k * BK, n * BN], location=asc2.TileLocation.L0B)
            asc2.matmul_acc(a_t, b_t, acc)
        asc2.store(acc, cg, offsets=[m * BM, n * BN])


def seconds() -> float:
    return rt.last_launch_stats().duration_us * 1e-6


L2 = 5e12  # Ascend910B1's L2, bytes per second (platform.cpp)
L2_BYTES = 192 * 1024 * 1024


def held_in_l2(read_bytes: int, written: int) -> float:
    """The written bytes L2's write-back keeps out of HBM: as many as the room the reads' footprint leaves."""
    return min(written, max(0, L2_BYTES - read_bytes))


def assert_bounds(gm_bytes: int, cores: int, vector_bytes: int = 0, macs: int = 0, aic: bool = False,
                  written: int = 0) -> None:  # fmt: skip
    """`gm_bytes`: the bytes the kernel must move at least, `written` of them writes (the rest reads, each once)."""
    took = seconds()
    used = min(cores, AIC if aic else AIV)
    held = held_in_l2(gm_bytes - written, written)
    bounds = {
        "HBM": (gm_bytes - held) / HBM + held / L2,
        "MTE": gm_bytes / used / (MTE_BYTES * CLOCK),  # the busiest core moves at least its share
        "vector": vector_bytes / (used * VECTOR_BYTES * CLOCK),
        "cube": macs / (used * CUBE_MACS * CLOCK),
    }
    for name, bound in bounds.items():
        assert took >= bound, f"{name}: estimated {took * 1e6:.2f} us, the bound is {bound * 1e6:.2f} us"


ELEMENTS = [TILE, 48 * TILE, 1 << 22, 25 << 20]
CORES = [1, 8, 48]


@pytest.mark.parametrize("cores", CORES)
@pytest.mark.parametrize("n", ELEMENTS)
def test_copy_and_add_stay_within_hbm_mte_and_vector_rates(n, cores):
    x = np.ones(n, np.float32)
    z = np.zeros_like(x)
    copy[cores, rt.current_stream()](x, z, n, TILE)
    assert_bounds(2 * x.nbytes, cores, written=z.nbytes)
    add[cores, rt.current_stream()](x, x, z, n, TILE)
    assert z[-1] == 2
    assert_bounds(3 * x.nbytes, cores, vector_bytes=x.nbytes, written=z.nbytes)


@pytest.mark.parametrize("cores", CORES)
@pytest.mark.parametrize("rows", [8, 48 * 8, 1 << 14])
def test_row_reductions_stay_within_the_rates(rows, cores):
    x = np.ones((rows, 1024), np.float32)
    z = np.zeros(rows, np.float32)
    row_sums[cores, rt.current_stream()](x, z, rows, 1024)
    assert z[0] == 1024
    assert_bounds(x.nbytes + z.nbytes, cores, vector_bytes=x.nbytes, written=z.nbytes)


@pytest.mark.parametrize("cores", [1, 4, 24])
@pytest.mark.parametrize("size", [128, 512, 1024])
def test_matmuls_stay_within_the_cube_and_hbm(size, cores):
    rng = np.random.default_rng(size)
    a, b = rng.uniform(-1, 1, (2, size, size)).astype(np.float16)
    c = np.zeros((size, size), np.float32)
    matmul[cores, rt.current_stream()](a, b, c, size)
    np.testing.assert_allclose(c, a.astype(np.float32) @ b.astype(np.float32), rtol=2e-3, atol=2e-3)
    assert_bounds(a.nbytes + b.nbytes + c.nbytes, cores, macs=size**3, aic=True, written=c.nbytes)


def test_the_platform_reports_the_published_figures_these_bounds_use():
    """rt.platform_figures (asc_platform_figure) gives the figures above, which the examples print bounds from."""
    chip = rt.platform_figures("Ascend910B1")
    assert (chip.aiv_cores, chip.aic_cores, chip.clock_ghz) == (AIV, AIC, CLOCK / 1e9)
    assert chip.hbm_bytes_per_second == pytest.approx(HBM)
    assert (chip.vector_bytes_per_cycle, chip.cube_f16_macs_per_cycle) == (VECTOR_BYTES, CUBE_MACS)
    assert chip.mte_bytes_per_cycle <= MTE_BYTES
    assert chip.hbm_bound_us(1.6e6) == pytest.approx(1.0)  # 1.6 MB at 1.6 TB/s
    assert chip.cube_bound_us(CUBE_MACS * AIC * 1850) == pytest.approx(1.0)  # 1850 cycles of every cube


@asc.jit
def re_read(x: asc.GlobalAddress, n: int, ROUNDS: asc.ConstExpr[int], T: asc.ConstExpr[int],
            BYPASS: asc.ConstExpr[bool] = False, WRITES_ONLY: asc.ConstExpr[bool] = False):  # fmt: skip
    """Every core reads all of x, ROUNDS times (BYPASS: past L2, SetL2CacheHint(CACHE_MODE_DISABLE); WRITES_ONLY:
    the same hint for x's writes alone, CacheRwMode.WRITE)."""
    x_gm = asc.GlobalTensor()
    x_gm.set_global_buffer(x, n)
    if BYPASS:
        x_gm.set_l2_cache_hint(asc.CacheMode.CACHE_MODE_DISABLE)
    if WRITES_ONLY:
        x_gm.set_l2_cache_hint(asc.CacheMode.CACHE_MODE_DISABLE, asc.CacheRwMode.WRITE)
    buf = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, T)
    for _r in range(ROUNDS):
        for i in range(n // T):
            asc.data_copy(buf, x_gm[i * T :], T)


def test_re_reads_that_fit_in_l2_come_from_there():
    """48 cores each read the same 1 MB 8 times: 384 MB, which HBM alone needs 240 us for; the reads after the
    first come from L2, so the estimate beats that but not L2's bandwidth, nor HBM's for the first 1 MB."""
    x = np.ones(1 << 18, np.float32)
    re_read[AIV, rt.current_stream()](x, x.size, 8, 16384)
    total = AIV * 8 * x.nbytes
    took = seconds()
    assert took < 0.85 * total / HBM, f"{took * 1e6:.1f} us: re-reads not served from L2"
    assert took >= total / L2 and took >= x.nbytes / HBM
    assert_bounds(x.nbytes, AIV)


def test_reads_marked_to_bypass_l2_all_come_from_hbm():
    """The same re-reads with x's cache mode CACHE_MODE_DISABLE: none is served from L2, so HBM bounds them all."""
    x = np.ones(1 << 18, np.float32)
    re_read[AIV, rt.current_stream()](x, x.size, 8, 16384, True)
    total = AIV * 8 * x.nbytes
    assert seconds() >= total / HBM


def test_a_hint_for_writes_leaves_the_reads_cached():
    """CACHE_MODE_DISABLE with CacheRwMode.WRITE names x's writes only: its re-reads still come from L2."""
    x = np.ones(1 << 18, np.float32)
    re_read[AIV, rt.current_stream()](x, x.size, 8, 16384, False, True)
    assert seconds() < 0.85 * AIV * 8 * x.nbytes / HBM


@asc.jit
def fill(z: asc.GlobalAddress, per_core: int, T: asc.ConstExpr[int], BYPASS: asc.ConstExpr[bool] = False):
    """Every core writes ones over its part of z, one tile at a time from the same UB tile: MTE3 only (BYPASS: z's
    writes past L2, CACHE_MODE_DISABLE)."""
    z_gm = asc.GlobalTensor()
    z_gm.set_global_buffer(z + asc.get_block_idx() * per_core, per_core)
    if BYPASS:
        z_gm.set_l2_cache_hint(asc.CacheMode.CACHE_MODE_DISABLE)
    buf = asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, 0, T)
    asc.duplicate(buf, 1.0, T)
    asc.set_flag(asc.HardEvent.V_MTE3, 0)
    asc.wait_flag(asc.HardEvent.V_MTE3, 0)
    for i in range(per_core // T):
        asc.data_copy(z_gm[i * T :], buf, T)


def test_l2_write_back_holds_the_writes_that_fit():
    """48 cores writing 48 MB (no reads: all of L2 is room) outrun HBM (30 us for 48 MB): the writes stay in L2,
    so the estimate beats HBM but not L2 nor the cores' MTE3 engines."""
    z = np.zeros(AIV << 18, np.float32)
    fill[AIV, rt.current_stream()](z, 1 << 18, 16384)
    assert (z == 1).all()
    took = seconds()
    assert took < 0.85 * z.nbytes / HBM, f"{took * 1e6:.1f} us: the writes went to HBM"
    assert took >= z.nbytes / L2
    assert_bounds(z.nbytes, AIV, written=z.nbytes)


def test_writes_marked_to_bypass_l2_go_to_hbm():
    """The same writes with z's cache mode CACHE_MODE_DISABLE: L2 holds none of them, so HBM bounds them all."""
    z = np.zeros(AIV << 18, np.float32)
    fill[AIV, rt.current_stream()](z, 1 << 18, 16384, True)
    assert (z == 1).all()
    assert seconds() >= z.nbytes / HBM
