"""Kernel types: which cores a launch runs on, what get_block_idx and the
sub-block queries return on each, and which memories each kind of core has."""

import numpy as np
import pytest

import asc
import asc.lib.runtime as rt
from asc.lib.runtime import profile
from asc.runtime.config import KernelType


def who_am_i(kernel_type):
    @asc.jit(kernel_type=kernel_type)
    def kernel(aiv: asc.GlobalAddress, aic: asc.GlobalAddress):
        aiv_gm, aic_gm = asc.GlobalTensor(), asc.GlobalTensor()
        aiv_gm.set_global_buffer(aiv)
        aic_gm.set_global_buffer(aic)
        code = 100 * asc.get_sub_block_idx() + 10 * asc.get_sub_block_num() + 1
        if asc.ascend_is_aiv():
            aiv_gm.set_value(asc.get_block_idx(), code)
        if asc.ascend_is_aic():
            aic_gm.set_value(asc.get_block_idx(), code + 1000 * asc.get_block_num())

    return kernel


@pytest.mark.parametrize("kernel_type,aivs,aics,ratio", [
    (KernelType.AIV_ONLY, 1, 0, 1), (KernelType.AIC_ONLY, 0, 1, 1), (KernelType.MIX_AIC_1_1, 1, 1, 1),
    (KernelType.MIX_AIC_1_2, 2, 1, 2),
])  # fmt: skip
@pytest.mark.parametrize("blocks", [1, 3, 30])
def test_cores_and_their_indices(kernel_type, aivs, aics, ratio, blocks):
    aiv = np.zeros(128, np.int64)
    aic = np.zeros(128, np.int64)
    who_am_i(kernel_type)[blocks, rt.current_stream()](aiv, aic)
    want_aiv = np.zeros(128, np.int64)
    for i in range(blocks * aivs):
        want_aiv[i] = 100 * (i % ratio) + 10 * ratio + 1
    want_aic = np.zeros(128, np.int64)
    want_aic[: blocks * aics] = 10 + 1 + 1000 * blocks  # sub-block 0 of 1
    np.testing.assert_array_equal(aiv, want_aiv)
    np.testing.assert_array_equal(aic, want_aic)


@asc.jit
def vector_core_uses_l1(x: asc.GlobalAddress):
    x_gm = asc.GlobalTensor()
    x_gm.set_global_buffer(x, 256)
    a1 = asc.LocalTensor(asc.float16, asc.TPosition.A1, 0, 256)
    asc.data_copy(a1, x_gm, 256)


@asc.jit(kernel_type=KernelType.AIC_ONLY)
def cube_core_uses_ub(x: asc.GlobalAddress):
    x_gm = asc.GlobalTensor()
    x_gm.set_global_buffer(x, 64)
    t = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 64)
    asc.data_copy(t, x_gm, 64)


def test_each_kind_of_core_has_its_own_memories():
    x = np.zeros(64, np.float32)
    with pytest.raises(asc.KernelError, match=r"L1 of a cube \(AIC\) core, but this code runs on block 0 \(AIV\)"):
        vector_core_uses_l1[1, rt.current_stream()](np.zeros(256, np.float16))
    with pytest.raises(asc.KernelError, match=r"Unified Buffer of a vector \(AIV\) core, but this code runs on AIC 0"):
        cube_core_uses_ub[1, rt.current_stream()](x)


@asc.jit(kernel_type=KernelType.MIX_AIC_1_2)
def greets(x: asc.GlobalAddress):
    if asc.ascend_is_aic():
        asc.printf("cube %d\n", asc.get_block_idx())
    else:
        asc.printf("vector %d.%d\n", asc.get_block_idx(), asc.get_sub_block_idx())


def test_printf_names_the_core(capsys):
    greets[2, rt.current_stream()](np.zeros(8, np.float32))
    assert capsys.readouterr().out.splitlines() == [
        "[AIC 0/2] cube 0", "[AIV 0/4] vector 0.0", "[AIV 1/4] vector 1.1",
        "[AIC 1/2] cube 1", "[AIV 2/4] vector 2.0", "[AIV 3/4] vector 3.1",
    ]  # fmt: skip


def test_blocks_beyond_the_cores_of_their_kind_run_in_waves():
    stream = rt.current_stream()
    aiv, aic = np.zeros(128, np.int64), np.zeros(128, np.int64)
    cycles = {}
    for kernel_type in (KernelType.AIV_ONLY, KernelType.AIC_ONLY):
        for blocks in (24, 48):
            who_am_i(kernel_type)[blocks, stream](aiv, aic)
            cycles[kernel_type, blocks] = profile.last_launch_stats(stream).cycles
    # 910B1: 48 vector cores, 24 cube cores: 48 AIC blocks take two waves, 48 AIV blocks one
    assert cycles[KernelType.AIV_ONLY, 48] == cycles[KernelType.AIV_ONLY, 24]
    assert cycles[KernelType.AIC_ONLY, 48] > cycles[KernelType.AIC_ONLY, 24]


@asc.jit
def uses_workspace(ws: asc.GlobalAddress, out: asc.GlobalAddress):
    asc.set_sys_workspace(ws)
    w = asc.GlobalTensor()
    w.set_global_buffer(asc.get_sys_workspace().reinterpret(asc.int32))
    o = asc.GlobalTensor()
    o.set_global_buffer(out)
    o.set_value(0, w.get_value(3))


def test_sys_workspace_is_the_buffer_set():
    ws = np.arange(16, dtype=np.int32)
    out = np.zeros(8, np.int32)
    uses_workspace[1, rt.current_stream()](ws, out)
    assert out[0] == 3

    @asc.jit
    def unset(x: asc.GlobalAddress):
        asc.get_sys_workspace()

    # it compiles (on the board the framework provides one); the Model has none to give
    with pytest.raises(asc.errors.KernelError, match="get_sys_workspace: no system workspace.*set_sys_workspace") as e:
        unset[1, rt.current_stream()](np.zeros(8, np.int32))
    assert "test_kernel_types.py" in str(e.value)
