"""Structs passed by value: each field reaches the kernel, the kernel's copy
can be changed without touching the host's, and field types are enforced."""

import numpy as np
import pytest

import asc
import asc.lib.runtime as rt


class Shape(asc.Struct):
    rows = asc.Field(asc.int32, 0, "rows")
    cols = asc.Field(asc.int32, 0, "cols")
    scale = asc.Field(asc.float32, 1.0, "scale")


@asc.jit
def use_struct(z: asc.GlobalAddress, shape: Shape, tiling: asc.adv.TCubeTiling, n: int):
    z_gm = asc.GlobalTensor()
    z_gm.set_global_buffer(z, 8)
    z_gm.set_value(0, shape.rows * shape.cols)
    shape.rows = shape.rows + n  # the kernel's copy only
    if n > 0:
        shape.cols = 100
    z_gm.set_value(1, shape.rows)
    z_gm.set_value(2, shape.cols)
    z_gm.set_value(3, tiling.base_m + tiling.single_core_k)
    tiling.share_l1_size = 524160
    z_gm.set_value(4, tiling.share_l1_size)
    z_gm.set_value(5, tiling.batch_num)


def test_fields_arrive_and_the_kernel_copy_is_local(rng):
    shape = Shape(rows=3, cols=7, scale=0.5)
    tiling = asc.adv.TCubeTiling(base_m=64, single_core_k=256, batch_num=9)
    z = np.zeros(8, np.int32)
    use_struct[1, rt.current_stream()](z, shape, tiling, 5)
    assert list(z[:6]) == [21, 8, 100, 320, 524160, 9]
    assert (shape.rows, shape.cols, tiling.share_l1_size) == (3, 7, 0)  # the host's values are unchanged


def test_pack_is_the_c_layout():
    t = asc.adv.TCubeTiling(used_core_num=16, m=256, base_k=64, batch_num=1)
    raw = np.frombuffer(t.pack(), np.int32)
    assert raw.size == 49 and raw[0] == 16 and raw[1] == 256 and raw[10] == 64 and raw[48] == 1
    assert [n for n, _ in t.fields()][:3] == ["used_core_num", "m", "n"]


def test_unknown_fields_are_errors():
    with pytest.raises(TypeError, match="no field"):
        asc.adv.TCubeTiling(base_q=1)

    @asc.jit
    def bad(z: asc.GlobalAddress, shape: Shape):
        shape.depth = 3

    with pytest.raises(asc.CodegenError, match="Shape has no field 'depth'"):
        bad[1, rt.current_stream()](np.zeros(8, np.int32), Shape())


@asc.jit
def properties(z: asc.GlobalAddress, tiling: asc.adv.TCubeTiling):
    z_gm = asc.GlobalTensor()
    z_gm.set_global_buffer(z, 8)
    tiling.share_l1_size = asc.property(asc.TOTAL_L1_SIZE)  # as pyasc's test_matmul does
    tiling.share_l0c_size = asc.property(asc.TOTAL_L0C_SIZE)
    z_gm.set_value(0, tiling.share_l1_size)
    z_gm.set_value(1, tiling.share_l0c_size)
    z_gm.set_value(2, asc.property(asc.DEFAULT_C0_SIZE))
    z_gm.set_value(3, asc.property(asc.ONE_BLK_SIZE))


def test_hardware_properties_are_atlas_a2_values():
    z = np.zeros(8, np.int32)
    properties[1, rt.current_stream()](z, asc.adv.TCubeTiling())
    assert list(z[:4]) == [512 * 1024 - 128, 128 * 1024, 32, 32]


@asc.jit
def struct_built_in_kernel(z: asc.GlobalAddress, size_m: asc.ConstExpr[int], size_k: int):
    z_gm = asc.GlobalTensor()
    z_gm.set_global_buffer(z, 8)
    tiling = asc.adv.TCubeTiling(m=size_m, k_a=size_k, single_core_m=64, single_core_k=48, used_core_num=12)
    z_gm.set_value(0, tiling.m.ceildiv(tiling.single_core_m))  # fields are run-time int32 scalars, as in pyasc
    z_gm.set_value(1, tiling.k_a.ceildiv(tiling.single_core_k))
    z_gm.set_value(2, tiling.used_core_num // tiling.k_a.ceildiv(tiling.single_core_k))
    tiling.m = tiling.m + 1  # a local variable: assignable
    z_gm.set_value(3, tiling.m)
    z_gm.set_value(4, tiling.batch_num)  # an unset field is its default
    shape = Shape(rows=size_k)
    z_gm.set_value(5, shape.rows * shape.cols)


@pytest.mark.parametrize("size_m, size_k", [(256, 100), (257, 96), (1, 1)])
def test_struct_built_in_kernel_has_scalar_fields(size_m, size_k):
    z = np.full(8, -7, np.int32)
    struct_built_in_kernel[1, rt.current_stream()](z, size_m, size_k)
    ceil = lambda a, b: -(-a // b)  # noqa: E731
    assert list(z[:6]) == [ceil(size_m, 64), ceil(size_k, 48), 12 // ceil(size_k, 48), size_m + 1, 0, 0]
