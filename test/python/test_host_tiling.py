"""asc.lib.host Matmul tiling: every tiling fits the cube memories, covers the
problem with at most the cores asked for, and honours fixed splits and the
traverse order; the matmul tutorials' host set-ups get usable tilings."""

import itertools

import pytest

import asc
import asc.lib.host as host

F16, F32, I8 = host.DataType.DT_FLOAT16, host.DataType.DT_FLOAT, host.DataType.DT_INT8
SIZE = {F16: 2, F32: 4, I8: 1}


def tile(shape, dim, dtype=F16, bias=False, fix=(-1, -1, -1), traverse=host.MatrixTraverse.NOSET):
    api = host.MultiCoreMatmulTiling(host.get_ascendc_platform())
    api.set_a_type(host.TPosition.GM, host.CubeFormat.ND, dtype, False)
    api.set_b_type(host.TPosition.GM, host.CubeFormat.ND, dtype, False)
    api.set_c_type(host.TPosition.GM, host.CubeFormat.ND, host.DataType.DT_INT32 if dtype == I8 else F32)
    api.set_bias_type(host.TPosition.GM, host.CubeFormat.ND, F32)
    api.set_dim(dim)
    api.set_org_shape(*shape)
    api.set_shape(*shape)
    api.enable_bias(bias)
    api.set_traverse(traverse)
    api.set_fix_split(*fix)
    api.set_buffer_space(-1, -1, -1)
    tiling = asc.adv.TCubeTiling()
    assert api.get_tiling(tiling) == 0
    return api, tiling


def check_fits_and_covers(t, shape, dim, dtype):
    m, n, k = shape
    platform = host.get_ascendc_platform()
    assert 1 <= t.used_core_num <= dim
    m_dim, n_dim = -(-m // t.single_core_m), -(-n // t.single_core_n)
    assert m_dim * n_dim == t.used_core_num  # every core gets a block, the blocks cover C
    assert t.single_core_k == k and (t.m, t.n, t.k_a, t.k_b) == (m, n, k, k)
    assert t.base_m % 16 == 0 and t.base_n % 16 == 0 and t.base_k % (32 // SIZE[dtype]) == 0
    assert t.base_m * t.base_k * SIZE[dtype] * t.db_l0a <= platform.l0a_bytes
    assert t.base_n * t.base_k * SIZE[dtype] * t.db_l0b <= platform.l0b_bytes
    assert t.base_m * t.base_n * 4 * t.db_l0c <= platform.l0c_bytes
    assert t.share_l1_size <= platform.l1_bytes


SHAPES = [(512, 1024, 512), (128, 30720, 64), (1024, 640, 256), (47, 30, 40), (1, 1, 1), (4096, 16, 8), (16, 4096, 7)]


@pytest.mark.parametrize("shape,dim,dtype", list(itertools.product(SHAPES, [1, 2, 24, 48], [F16, F32, I8])))
def test_tilings_fit_and_cover(shape, dim, dtype):
    _, t = tile(shape, dim, dtype)
    check_fits_and_covers(t, shape, dim, dtype)


def test_large_float16_products_get_huaweis_base_blocks_and_l1_factors():
    # the Matmul best-practice sample's tiling for 8192^3 float16 on 24 cores (asc-devkit matmul_high_performance
    # README, case 5): base 128 x 256 x 64, depthA1 16 with stepKa 8, depthB1 8 with stepKb 4 — L1 filled,
    # 2 x (8 x 128 x 64 + 4 x 256 x 64) x 2 bytes = 512 KiB — and L0A / L0B double-buffered
    _, t = tile((8192, 8192, 8192), 24)
    assert (t.base_m, t.base_n, t.base_k) == (128, 256, 64)
    assert (t.depth_a1, t.step_k_a, t.depth_b1, t.step_k_b, t.step_m, t.step_n) == (16, 8, 8, 4, 1, 1)
    assert (t.db_l0a, t.db_l0b, t.share_l1_size) == (2, 2, 512 * 1024)
    check_fits_and_covers(t, (8192, 8192, 8192), 24, F16)


def test_l1_steps_stop_at_k_and_a_bias_keeps_them_at_one():
    _, t = tile((1024, 1024, 128), 24)  # K is two 64-deep steps: a chunk holds no more
    assert (t.step_k_a, t.step_k_b, t.depth_a1, t.depth_b1) == (2, 2, 4, 4)
    _, t = tile((2048, 2048, 2048), 24, bias=True)  # the bias row's L1 rows: one base block at a time
    assert (t.step_k_a, t.step_k_b, t.depth_a1, t.depth_b1) == (1, 1, 2, 2)


def test_the_leakyrelu_tutorial_gets_what_its_kernel_assumes():
    # 05_matmul_leakyrelu: two cores, baseM 256 x baseN 128 fixed, M first; its kernel turns the iteration
    # count into offsets assuming whole base blocks and M moving fastest
    _, t = tile((1024, 640, 256), 2, bias=True, fix=(256, 128, -1), traverse=host.MatrixTraverse.FIRSTM)
    assert (t.used_core_num, t.base_m, t.base_n) == (2, 256, 128)
    assert t.single_core_m % t.base_m == 0 and t.single_core_n % t.base_n == 0
    assert (t.iterate_order, t.step_n, t.is_bias) == (0, 1, 1)


def test_traverse_sets_the_iterate_order():
    assert tile((256, 256, 64), 4, traverse=host.MatrixTraverse.FIRSTN)[1].iterate_order == 1
    assert tile((256, 256, 64), 4, traverse=host.MatrixTraverse.FIRSTM)[1].iterate_order == 0


def test_shapes_and_queries_as_pyasc_reports_them():
    api = host.MultiCoreMatmulTiling(host.get_ascendc_platform())
    api.set_shape(32, 16, 8)
    api.set_dim(1)
    t = asc.adv.TCubeTiling()
    assert api.get_tiling(t) == 0
    assert (t.m, t.n, t.k_a, t.k_b, t.used_core_num) == (32, 16, 8, 8, 1)
    assert api.get_core_num() == (1, 1, 1)
    api.set_single_shape(32, 16, 8)
    api.get_tiling(t)
    assert api.get_single_shape() == (32, 16, 8)
    assert api.get_base_m() == t.base_m


def test_impossible_requests_fail():
    api = host.MultiCoreMatmulTiling(host.get_ascendc_platform())
    assert api.set_fix_split(100, 128) == -1  # not a multiple of 16
    assert api.get_tiling(asc.adv.TCubeTiling()) == -1  # no shape
    api.set_shape(512, 512, 512)
    api.set_fix_split(512, 512, -1)  # 1 MiB of float32 results: more than L0C
    assert api.get_tiling(asc.adv.TCubeTiling()) == -1
