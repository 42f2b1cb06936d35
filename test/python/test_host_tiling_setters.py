"""The tiling setters pyasc's host API adds: the ones that change the tiling change it as documented (split
range, single range, align split, split K, config params' traverse); the ones the Model does not need are
recorded and read back."""

import pytest

import asc
import asc.lib.host as host


def tiling(shape, dim=1, **setters):
    api = host.MultiCoreMatmulTiling(host.get_ascendc_platform())
    api.set_dim(dim)
    api.set_shape(*shape)
    api.set_org_shape(*shape)
    for name, args in setters.items():
        getattr(api, name)(*args)
    t = asc.adv.TCubeTiling()
    assert api.get_tiling(t) == 0
    return api, t


def test_split_range_bounds_the_bases():
    _, free = tiling((256, 256, 256))
    assert (free.base_m, free.base_n, free.base_k) == (128, 256, 64)
    api, t = tiling((256, 256, 256), set_split_range=(32, 64, 32, -1, -1, -1))
    assert (t.base_m, t.base_n, t.base_k) == (32, 64, 32)
    assert api.get_split_range() == (32, 64, 32, -1, -1, -1)
    _, t = tiling((64, 64, 512), set_split_range=(-1, -1, 128, -1, -1, -1))
    assert t.base_k == 128  # 256 without the bound
    _, t = tiling((20, 20, 64), set_split_range=(-1, -1, -1, 64, 48, -1))
    assert (t.base_m, t.base_n) == (64, 48)  # raised to the minimums
    api = host.MatmulApiTiling(host.get_ascendc_platform())
    assert api.set_split_range(32, 32, 32, 64, -1, -1) == -1  # min above max
    assert api.set_split_range(0) == -1


def test_single_range_steers_the_split_over_cores():
    _, t = tiling((256, 256, 64), 4)
    assert (t.single_core_m, t.single_core_n, t.used_core_num) == (128, 128, 4)
    _, t = tiling((256, 256, 64), 4, set_single_range=(64, -1, -1, -1, -1, -1))
    assert (t.single_core_m, t.single_core_n, t.used_core_num) == (64, 256, 4)
    assert host.MultiCoreMatmulTiling(host.get_ascendc_platform()).set_single_range(8, -1, -1, 16) == -1


def test_align_split_rounds_each_cores_block_up():
    _, t = tiling((100, 200, 64), 2)
    assert (t.single_core_m, t.single_core_n) == (100, 100)
    _, t = tiling((100, 200, 64), 2, set_align_split=(-1, 64, -1))
    assert (t.single_core_m, t.single_core_n, t.used_core_num) == (100, 128, 2)


def test_multi_core_split_k_uses_idle_cores_for_k():
    api, t = tiling((16, 16, 1024), 8)
    assert (t.single_core_k, t.used_core_num) == (1024, 1)
    api, t = tiling((16, 16, 1024), 8, enable_multi_core_split_k=(True,))
    assert (t.single_core_k, t.used_core_num, api.get_core_num()) == (128, 8, (8, 1, 1))
    _, t = tiling((16, 16, 1024), 8, enable_multi_core_split_k=(True,), set_single_range=(-1, -1, 256, -1, -1, -1))
    assert (t.single_core_k, t.used_core_num) == (256, 4)  # the fewest pieces within the K bound


def test_config_params_traverse_orders_the_iteration_and_is_recorded():
    api, t = tiling((256, 256, 64), 1)
    assert t.iterate_order == 0
    params = host.MatmulConfigParams(1, False, host.ScheduleType.OUTER_PRODUCT, host.MatrixTraverse.FIRSTN, True)
    api, t = tiling((256, 256, 64), 1, set_matmul_config_params=(params,))
    assert t.iterate_order == 1 and api.get_matmul_config_params() == params
    api.set_matmul_config_params(2, True, host.ScheduleType.INNER_PRODUCT)
    assert api.get_matmul_config_params() == host.MatmulConfigParams(2, True)


def test_recorded_choices_read_back():
    api = host.BatchMatmulTiling(host.get_ascendc_platform())
    assert api.get_mad_type() == host.MatrixMadType.NORMAL and api.get_dequant_type() == host.DequantType.SCALAR
    assert api.set_mad_type(host.MatrixMadType.HF32) == 0 and api.get_mad_type() == host.MatrixMadType.HF32
    assert api.set_dequant_type(host.DequantType.TENSOR) == 0 and api.get_dequant_type() == host.DequantType.TENSOR
    assert api.set_sparse(True) == 0 and api.is_sparse()
    assert api.set_double_buffer(True, False, True, False) == 0
    assert api.get_double_buffer() == (True, False, True, False, True, True)
    assert (api.get_base_m(), api.get_base_n(), api.get_base_k()) == (-1, -1, -1)
    api.set_fix_split(32, 16, 8)  # the bases before get_tiling are the fixed ones
    assert (api.get_base_m(), api.get_base_n(), api.get_base_k()) == (32, 16, 8)


def test_data_types_are_ges_and_non_cube_types_do_not_tile():
    assert host.DataType.DT_BFLOAT16 is host.DataType.DT_BF16 and host.DataType.DT_BF16 == 27
    assert (host.DataType.DT_UINT64, host.DataType.DT_BOOL, host.DataType.DT_INT4) == (10, 12, 29)
    assert host.TPosition.TSCM == 13 and host.TPosition.SHM is host.TPosition.SPM
    api = host.MatmulApiTiling(host.get_ascendc_platform())
    api.set_shape(32, 32, 32)
    api.set_a_type(host.TPosition.GM, host.CubeFormat.ND, host.DataType.DT_DOUBLE, False)
    assert api.get_tiling(asc.adv.TCubeTiling()) == -1


@pytest.mark.parametrize("cls", [host.MatmulApiTiling, host.MultiCoreMatmulTiling, host.BatchMatmulTiling])
def test_platform_argument_defaults_to_the_current_soc(cls):
    assert cls().platform is host.PlatformAscendCManager.get_instance()
