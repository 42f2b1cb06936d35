"""asc.lib.runtime's pyasc API on the Model: device memory round trips, launch_kernel on it, the device
queries, get_soc_version's type, every Platform's facts, set_platform's check, and the NPU's clear errors."""

import ctypes
from unittest.mock import patch

import numpy as np
import pytest

import asc.lib.host as host
import asc.lib.runtime as rt
import asc.runtime.config as config
from asc._ffi import ffi, lib
from asc.lib.runtime import platforms
from asc.lib.runtime.device_memory import live_allocations
from asc.runtime.compiler import CompileOptions, Compiler, core_type_of

from kernels import BUFFER_NUM, TILE_NUM, vadd_manual_sync

H2D, D2H, D2D = (rt.MemcpyKind.RT_MEMCPY_HOST_TO_DEVICE, rt.MemcpyKind.RT_MEMCPY_DEVICE_TO_HOST,
                 rt.MemcpyKind.RT_MEMCPY_DEVICE_TO_DEVICE)  # fmt: skip


# -- device memory ----------------------------------------------------------------------------------------
def test_malloc_memcpy_round_trip_matches_numpy(rng):
    x = rng.random(1000, dtype=np.float32)
    before = live_allocations()
    handle = rt.malloc(x.nbytes)
    assert isinstance(handle, rt.Memory) and handle.value % 512 == 0
    rt.memcpy(handle, x.nbytes, x.ctypes.data_as(ctypes.c_void_p), x.nbytes, H2D)
    y = np.empty_like(x)
    rt.memcpy(y.ctypes.data, y.nbytes, handle, x.nbytes, D2H)
    np.testing.assert_array_equal(y, x)
    rt.free(handle)
    assert live_allocations() == before


def test_malloc_is_zeroed_and_device_to_device_copies_within_allocations(rng):
    a, b = rt.malloc(256), rt.malloc(256)
    out = np.ones(64, np.float32)
    rt.copy_data_from_device(out, a, 256)
    assert not out.any()  # fresh device memory reads as zeros
    x = rng.random(64, dtype=np.float32)
    rt.memcpy(a, 256, x, 256, H2D)
    rt.memcpy(rt.Memory(b.value + 128), 128, a, 128, D2D)  # first half of a -> second half of b
    rt.copy_data_from_device(out, b, 256)
    np.testing.assert_array_equal(out[32:], x[:32])
    assert not out[:32].any()
    rt.free(a)
    rt.free(b)


def test_copy_data_to_device_allocates_a_copy():
    x = np.arange(48, dtype=np.int32)
    handle = rt.copy_data_to_device(x.ctypes.data_as(ctypes.c_void_p), x.nbytes)
    x[:] = 0  # the device copy is independent of the host array
    y = np.empty(48, np.int32)
    rt.copy_data_from_device(y.ctypes.data_as(ctypes.c_void_p), handle, y.nbytes)
    np.testing.assert_array_equal(y, np.arange(48, dtype=np.int32))
    rt.free(handle)


def test_overruns_foreign_addresses_and_double_frees_are_errors():
    handle = rt.malloc(64)
    host_buffer = np.zeros(32, np.float32)
    with pytest.raises(ValueError, match="overrun the destination"):
        rt.memcpy(rt.Memory(handle.value + 32), 128, host_buffer, 64, H2D)
    with pytest.raises(ValueError, match="do not fit"):
        rt.memcpy(handle, 32, host_buffer, 64, H2D)
    with pytest.raises(ValueError, match="is not device memory"):
        rt.memcpy(host_buffer, 64, host_buffer, 64, D2H)
    with pytest.raises(RuntimeError, match="malloc size must be an int > 0"):
        rt.malloc(0)
    rt.free(handle)
    with pytest.raises(ValueError, match="not the start of a live allocation"):
        rt.free(handle)


def test_launch_kernel_runs_a_jit_kernel_on_device_memory(rng):
    block_length = TILE_NUM * BUFFER_NUM * 8
    x = rng.random(2 * block_length, dtype=np.float32)
    y = rng.random(2 * block_length, dtype=np.float32)
    kernel, _ = vadd_manual_sync.specialise((x, y, np.empty_like(x), block_length), {})
    assert rt.register_function(kernel, "vadd", 0) is kernel
    dx, dy, dz = rt.copy_data_to_device(x, x.nbytes), rt.copy_data_to_device(y, y.nbytes), rt.malloc(x.nbytes)
    rt.launch_kernel(kernel, 2, [dx, dy, dz, np.int32(block_length)])
    rt.synchronize()
    z = np.empty_like(x)
    rt.copy_data_from_device(z, dz, z.nbytes)
    np.testing.assert_array_equal(z, x + y)
    for handle in (dx, dy, dz):
        rt.free(handle)


def test_launch_kernel_checks_its_arguments(rng):
    x = np.zeros(TILE_NUM * BUFFER_NUM * 8, np.float32)
    kernel, _ = vadd_manual_sync.specialise((x, x, x, x.size), {})
    with pytest.raises(TypeError, match="3 arguments for 4 parameters"):
        rt.launch_kernel(kernel, 1, [rt.malloc(16)] * 3)
    with pytest.raises(ValueError, match="argument 'x' .* is not device memory"):
        rt.launch_kernel(kernel, 1, [x, x, x, x.size])
    with pytest.raises(TypeError, match="asc.jit compiled kernel"):
        rt.launch_kernel(ctypes.c_void_p(1234), 1, [])
    with pytest.raises(NotImplementedError, match="not device binaries"):
        rt.register_device_binary_kernel(b"\x7fELF", rt.magic_elf_value(rt.CoreType.VectorCore))
    rt.free_mem()


# -- devices and platforms ----------------------------------------------------------------------------------
def test_the_model_is_one_device():
    assert rt.device_count() == 1 and rt.current_device() == 0 and rt.default_device() == 0
    rt.set_device(0)
    with pytest.raises(RuntimeError, match="one device"):
        rt.set_device(1)
    with pytest.raises(RuntimeError, match="int >= 0"):
        rt.check_device_handle(-1)
    rt.acl_init()
    assert rt.is_initialized()
    rt.reset_device()
    assert not rt.is_initialized()
    rt.acl_finalize()


def test_get_soc_version_is_a_platform_member():
    config.set_platform(config.Backend.Model, config.Platform.Ascend910B3)
    soc = rt.get_soc_version()
    assert soc is config.Platform.Ascend910B3 and isinstance(soc, rt.Platform)
    assert rt.current_platform() == "Ascend910B3"


# (aic, aiv) cores and clock (GHz) of each pyasc platform: sources in src/target/platform.cpp and
# docs/runtime-api.md ("Platforms")
CORES = {"Ascend910B1": (24, 48), "Ascend910B2": (24, 48), "Ascend910B2C": (24, 48), "Ascend910B3": (20, 40),
         "Ascend910B4": (20, 40), "Ascend910B4-1": (20, 40), "Ascend910_9362": (20, 40), "Ascend910_9372": (20, 40),
         "Ascend910_9381": (24, 48), "Ascend910_9382": (24, 48), "Ascend910_9391": (24, 48),
         "Ascend910_9392": (24, 48),
         # the Ascend 950 generation (dav-c310)
         "Ascend910_9579": (28, 56), "Ascend910_9589": (32, 64), "Ascend910_9599": (36, 72),
         "Ascend950PR_950z": (4, 8), "Ascend950PR_9579": (28, 56), "Ascend950PR_957b": (28, 56),
         "Ascend950PR_957c": (28, 56), "Ascend950PR_957d": (28, 56), "Ascend950PR_9589": (32, 64),
         "Ascend950PR_958b": (32, 64), "Ascend950PR_9599": (36, 72)}  # fmt: skip
CLOCK_GHZ = {"Ascend910B1": 1.85, "Ascend910B2": 1.80, "Ascend910B2C": 1.80, "Ascend910B3": 1.80,
             "Ascend910B4": 1.50, "Ascend910B4-1": 1.50, "Ascend910_9362": 1.50, "Ascend910_9372": 1.80,
             "Ascend910_9381": 1.80, "Ascend910_9382": 1.80, "Ascend910_9391": 1.85,
             "Ascend910_9392": 1.85,
             "Ascend910_9579": 1.65, "Ascend910_9589": 1.65, "Ascend910_9599": 1.80, "Ascend950PR_950z": 1.65,
             "Ascend950PR_9579": 1.65, "Ascend950PR_957b": 1.65, "Ascend950PR_957c": 1.65, "Ascend950PR_957d": 1.65,
             "Ascend950PR_9589": 1.65, "Ascend950PR_958b": 1.65, "Ascend950PR_9599": 1.80}  # fmt: skip
C310 = {"Ascend910_9579", "Ascend910_9589", "Ascend910_9599", "Ascend950PR_950z", "Ascend950PR_9579",
        "Ascend950PR_957b", "Ascend950PR_957c", "Ascend950PR_957d", "Ascend950PR_9589", "Ascend950PR_958b",
        "Ascend950PR_9599"}  # fmt: skip
# UB, L1, L0A, L0B, L0C and the bias table: CANN's ini for dav-c220, asc-devkit's __NPU_ARCH__ 3510 constants for c310
BUFFERS = {config.CompilationArch.C220: (196608, 524288, 65536, 65536, 131072, 1024),
           config.CompilationArch.C310: (253952, 524288, 65536, 65536, 262144, 4096)}  # fmt: skip


@pytest.mark.parametrize("platform", list(config.Platform), ids=lambda p: p.value)
def test_every_platform_has_its_core_facts(platform):
    config.set_platform(config.Backend.Model, platform)
    assert rt.get_soc_version() is platform
    aic, aiv = CORES[platform.value]
    assert rt.device_info(rt.DeviceModuleType.RT_MODULE_TYPE_AICORE, rt.DeviceInfoType.INFO_TYPE_CORE_NUM) == aic
    assert rt.device_info(rt.DeviceModuleType.RT_MODULE_TYPE_VECTOR_CORE, rt.DeviceInfoType.INFO_TYPE_CORE_NUM) == aiv
    p = host.PlatformAscendCManager.get_instance(platform.value)
    assert (p.get_core_num_aic(), p.get_core_num_aiv(), p.get_soc_version()) == (aic, aiv, platform.value)
    arch = config.CompilationArch.C310 if platform.value in C310 else config.CompilationArch.C220
    assert (p.ub_bytes, p.l1_bytes, p.l0a_bytes, p.l0b_bytes, p.l0c_bytes, p.bt_bytes) == BUFFERS[arch]
    assert host.PlatformAscendCManager.get_instance(platform) is p  # one instance per SoC


@pytest.mark.parametrize("platform", list(config.Platform), ids=lambda p: p.value)
def test_platform_to_arch(platform):
    expected = config.CompilationArch.C310 if platform.value in C310 else config.CompilationArch.C220
    assert config.platform_to_arch(platform) is config.platform_to_arch(platform.value) is expected
    assert config.platform_to_arch(platform.name) is expected  # a member's name, as set_platform takes it
    assert str(expected) == {"C220": "c220", "C310": "c310"}[expected.name]  # PyAsc2's values


def test_platform_to_arch_unknown_and_the_950_default():
    with pytest.raises(ValueError, match="unknown platform 'Ascend310P3'"):
        config.platform_to_arch("Ascend310P3")
    # PyAsc2's asc2 suite runs on Ascend950PR_9599 by default: it is selectable and is a C310 row
    config.set_platform(config.Backend.Model, "Ascend950PR_9599")
    assert rt.get_soc_version() is config.Platform.Ascend950PR_9599
    assert config.platform_to_arch(rt.get_soc_version()) is config.CompilationArch.C310
    config.set_platform(config.Backend.Model)


def test_every_platform_is_a_libasc_row_of_its_own():
    assert rt.known_platforms() == [p.value for p in config.Platform]  # the table's order is the enum's
    assert not hasattr(platforms, "BORROWED_ROWS")
    for platform in config.Platform:
        info = ffi.new("asc_platform_info_t*")
        name = platform.value.encode()
        assert lib.asc_platform_query(name, len(name), info) == lib.ASC_OK
        assert (info.aic_cores, info.aiv_cores) == CORES[platform.value]
        assert info.clock_ghz == pytest.approx(CLOCK_GHZ[platform.value])


@pytest.mark.parametrize("platform", ["Ascend910B4-1", "Ascend910_9392", "Ascend910_9362"])
def test_a_soc_with_its_own_row_is_named_as_itself(platform):
    config.set_platform(config.Backend.Model, platform)
    assert rt.get_soc_version().value == rt.current_platform() == platform
    p = host.PlatformAscendCManager.get_instance()  # the current SoC
    assert p.get_soc_version() == platform and (p.get_core_num_aic(), p.get_core_num_aiv()) == CORES[platform]


def test_platform_by_name_or_value():
    assert platforms.to_platform("Ascend910B4-1") is platforms.to_platform("Ascend910B4_1") is rt.Platform.Ascend910B4_1
    with pytest.raises(ValueError, match="unknown platform 'Ascend310P3'"):
        config.set_platform(config.Backend.Model, "Ascend310P3")


def test_set_platform_check_and_unavailable_message():
    with patch.object(config.rt, "is_available", return_value=False):
        config.set_platform(config.Backend.Model, config.Platform.Ascend910_9391, check=False)  # only records
        assert rt.get_soc_version() is config.Platform.Ascend910_9391
        with pytest.raises(RuntimeError, match="simulator/Ascend910_9391/lib"):
            config.set_platform(config.Backend.Model, config.Platform.Ascend910_9391)


def test_npu_calls_without_a_c_abi_function_name_it():
    """(Device memory and queries on the NPU: test_npu_runtime.py.)"""
    config.set_platform(config.Backend.NPU, config.Platform.Ascend910B1, check=False)
    try:
        missing = [
            (rt.c2c_ctrl_addr, (), "rtGetC2cCtrlAddr"),
            (rt.set_pro_switch, (rt.ProfilingCommandHandle.Type.START,), "rtProfSetProSwitch"),
        ]
        for call, args, acl in missing:
            with pytest.raises(rt.NpuRuntimeCallMissing, match=f"{call.__name__} on Backend.NPU .*{acl}"):
                call(*args)
    finally:
        config.set_platform(config.Backend.Model)


# -- compile options -----------------------------------------------------------------------------------------
def test_compiler_checks_options_and_kernel_types_map_to_core_types():
    with pytest.raises(RuntimeError, match="Please check input compile option: opt_level must be 1, 2 or 3"):
        Compiler(CompileOptions(opt_level=0))
    assert Compiler(CompileOptions(kernel_type=config.KernelType.AIC_ONLY)).core_type == rt.CoreType.CubeCore
    assert core_type_of(config.KernelType.MIX_AIC_1_1) == rt.CoreType.AiCore
    assert core_type_of(config.KernelType.MIX_AIV_HARD_SYNC) == rt.CoreType.VectorCore
    assert core_type_of(None) == rt.CoreType.VectorCore
