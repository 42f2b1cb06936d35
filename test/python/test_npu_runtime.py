"""asc.lib.runtime's device memory and device queries on Backend.NPU, against the C++ tests' stand-in
libascendcl.so (test/acl_standin): malloc, free, memcpy in every direction, free_mem, device_count and
device_info reach aclrtMalloc, aclrtFree, aclrtMemcpy, aclrtGetDeviceCount and aclrtGetDeviceInfo with the
right arguments, and ACL's refusals come back as exceptions that say what went wrong. ACL loads once per
process, so the NPU runs in a subprocess; without CANN, the calls say what to install."""

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Optional

import pytest
from npu_scripts import ERROR_HELPER, SCALE_KERNEL

import asc.lib.runtime as rt
import asc.runtime.config as config
from asc.errors import BackendUnavailableError

NPU_MEMORY_SCRIPT = (
    r"""
import ctypes, json, os
import numpy as np
import asc.lib.runtime as rt
import asc.runtime.config as config
from asc.lib.runtime.device_memory import live_allocations

acl = ctypes.CDLL(os.environ["ASC_ACL_LIBRARY"])  # the copy libasc loads
acl.standin_log.restype = ctypes.c_char_p
acl.standin_live_allocations.restype = ctypes.c_size_t
K = rt.MemcpyKind
out = {}

def calls():
    log = acl.standin_log().decode().splitlines()
    acl.standin_reset()
    return log

"""
    + ERROR_HELPER
    + r"""

config.set_platform(config.Backend.NPU, config.Platform.Ascend910B1, device_id=2, check=False)
acl.standin_set_device_count(3)
acl.standin_reset()
out["count"] = rt.device_count()
info = rt.DeviceInfoType
mod = rt.DeviceModuleType
out["aicore"] = rt.device_info(mod.RT_MODULE_TYPE_AICORE, info.INFO_TYPE_CORE_NUM)
out["aiv"] = rt.device_info(mod.RT_MODULE_TYPE_VECTOR_CORE, info.INFO_TYPE_CORE_NUM, 1)
out["cube"] = rt.device_info(mod.RT_MODULE_TYPE_SYSTEM, info.INFO_TYPE_CUBE_NUM)
out["id"] = rt.device_info(mod.RT_MODULE_TYPE_AICORE, info.INFO_TYPE_ID)
out["query_calls"] = calls()
out["bad_device"] = error(rt.device_info, mod.RT_MODULE_TYPE_AICORE, info.INFO_TYPE_CORE_NUM, 7)
out["bad_info"] = error(rt.device_info, mod.RT_MODULE_TYPE_AICPU, info.INFO_TYPE_VERSION)
calls()

x = np.arange(64, dtype=np.float32)
y = np.zeros_like(x)
z = np.zeros_like(x)
dx = rt.malloc(x.nbytes)
dy = rt.malloc(x.nbytes, rt.MemoryType.RT_MEMORY_HBM, rt.MallocPolicy.RT_MEMORY_POLICY_DEFAULT_PAGE_ONLY)
rt.memcpy(dx, x.nbytes, x.ctypes.data, x.nbytes, K.RT_MEMCPY_HOST_TO_DEVICE)
rt.memcpy(dy, x.nbytes, dx, x.nbytes, K.RT_MEMCPY_DEVICE_TO_DEVICE)
rt.memcpy(y, y.nbytes, dy, x.nbytes, K.RT_MEMCPY_DEVICE_TO_HOST)
rt.memcpy(z, z.nbytes, y, y.nbytes, K.RT_MEMCPY_HOST_TO_HOST)
out["round_trip"] = bool((y == x).all() and (z == x).all())
out["helpers"] = None
d = rt.copy_data_to_device(x.ctypes.data, x.nbytes)
w = np.zeros_like(x)
rt.copy_data_from_device(w, d, w.nbytes)
out["helpers"] = bool((w == x).all())
out["live"] = [live_allocations(), acl.standin_live_allocations()]
out["memory_calls"] = calls()
out["overrun"] = error(rt.memcpy, dx, 512, x.ctypes.data, 512, K.RT_MEMCPY_HOST_TO_DEVICE)
out["managed"] = error(rt.memcpy, dx, 8, x.ctypes.data, 8, K.RT_MEMCPY_MANAGED)
out["p2p"] = error(rt.malloc, 64, rt.MemoryType.RT_MEMORY_DEFAULT, rt.MallocPolicy.RT_MEMORY_POLICY_HUGE_PAGE_ONLY_P2P)
out["wrong_side"] = error(rt.memcpy, x.ctypes.data, 8, dx, 8, K.RT_MEMCPY_HOST_TO_DEVICE)
out["refusal_calls"] = calls()
rt.free(dx)
out["free_twice"] = error(rt.free, dx)
acl.standin_fail(b"aclrtMalloc", 207001)
out["malloc_fails"] = error(rt.malloc, 64)
acl.standin_reset()
rt.free_mem()
out["after_free_mem"] = [live_allocations(), acl.standin_live_allocations()]
out["free_calls"] = [c.split()[0] for c in calls()]
print("RESULT", json.dumps(out))
"""
)


LAUNCH_SCRIPT = (
    r"""
import ctypes, json, os
import numpy as np
import asc, asc.lib.runtime as rt, asc.runtime.config as config

"""
    + SCALE_KERNEL
    + r"""

acl = ctypes.CDLL(os.environ["ASC_ACL_LIBRARY"])
acl.standin_log.restype = ctypes.c_char_p
config.set_platform(config.Backend.NPU, config.Platform.Ascend910B1)
x = np.ones(64, np.float32)
kernel = rt.register_function(scale.specialise((x, 64), {})[0], "scale")
dx = rt.copy_data_to_device(x.ctypes.data, x.nbytes)
acl.standin_reset()
rt.launch_kernel(kernel, 4, [dx, 64])
out = {"address": dx.value, "calls": acl.standin_log().decode().splitlines()}
try:
    rt.launch_kernel(kernel, 1, [x, 64])
except Exception as e:
    out["host_buffer"] = f"{type(e).__name__}: {e}"
rt.free(dx)
print("RESULT", json.dumps(out))
"""
)


BINARY_SCRIPT = (
    r"""
import ctypes, json, os
import numpy as np
import asc.lib.runtime as rt, asc.runtime.config as config

acl = ctypes.CDLL(os.environ["ASC_ACL_LIBRARY"])
acl.standin_log.restype = ctypes.c_char_p
out = {}
"""
    + ERROR_HELPER
    + r"""

config.set_platform(config.Backend.NPU, config.Platform.Ascend910B1, check=False)
kernel = rt.register_device_binary_kernel(b"stand-in object", rt.magic_elf_value(rt.CoreType.VectorCore))
vadd = rt.register_function(kernel, "standin_vadd", 0)  # the stand-in runs it: z = x + y, float32
x, y = np.arange(8, dtype=np.float32), np.full(8, 0.25, np.float32)
dx, dy, dz = (rt.copy_data_to_device(a.ctypes.data, a.nbytes) for a in (x, y, np.zeros_like(x)))
acl.standin_reset()
rt.launch_kernel(vadd, 2, [dx, dy, dz, ctypes.c_int32(8)])
out["launch_calls"] = acl.standin_log().decode().splitlines()
z = np.zeros_like(x)
rt.copy_data_from_device(z, dz, z.nbytes)
out["device_memory"] = z.tolist()
host = np.zeros_like(x)
rt.launch_kernel(vadd, 1, [x, y, host, np.int32(8)])  # numpy arrays: host memory, copied in and back
out["host_memory"] = host.tolist()
out["python_int"] = error(rt.launch_kernel, vadd, 1, [dx, dy, dz, 8])
out["host_address"] = error(rt.launch_kernel, vadd, 1, [ctypes.c_void_p(x.ctypes.data), dy, dz, ctypes.c_int32(8)])
out["unknown_binary"] = error(rt.register_function, rt.Kernel(12345), "standin_vadd")
acl.standin_reset()
rt.unregister_device_binary_kernel(kernel)
out["unload_calls"] = acl.standin_log().decode().splitlines()
out["after_unload"] = error(rt.launch_kernel, vadd, 1, [dx, dy, dz, ctypes.c_int32(8)])
rt.free_mem()
print("RESULT", json.dumps(out))
"""
)


def run_npu(tmp_path: Path, script: str, env: Optional[dict] = None) -> dict:
    build = Path(__file__).resolve().parents[2] / os.environ.get("BUILD_DIR", "build")
    standin = build / "test" / "standin_acl" / "libascendcl.so"
    assert standin.exists(), f"{standin} is built with the C++ tests (make build)"
    path = tmp_path / "npu_memory.py"
    path.write_text(script)
    env = {**os.environ, "ASC_ACL_LIBRARY": str(standin), "PYASC_CACHE_DIR": str(tmp_path / "cache"), **(env or {})}
    done = subprocess.run([sys.executable, str(path)], env=env, capture_output=True, text=True, timeout=120)
    lines = [line for line in done.stdout.splitlines() if line.startswith("RESULT ")]
    assert done.returncode == 0 and lines, done.stdout + done.stderr
    return json.loads(lines[-1][len("RESULT ") :])


@pytest.fixture(scope="module")
def npu(tmp_path_factory):
    return run_npu(tmp_path_factory.mktemp("npu"), NPU_MEMORY_SCRIPT)


def test_device_queries_ask_acl(npu):
    assert npu["count"] == 3
    assert (npu["aicore"], npu["aiv"], npu["cube"], npu["id"]) == (24, 48, 24, 2)
    # the current device (2) unless device_info is given one; ACL's attributes 101, 201, 102 (aclrtDevAttr)
    queries = [c for c in npu["query_calls"] if c.startswith("aclrtGetDevice")]
    assert queries == ["aclrtGetDeviceCount", "aclrtGetDeviceInfo 2 101", "aclrtGetDeviceInfo 1 201",
                       "aclrtGetDeviceInfo 2 102"]  # fmt: skip
    assert npu["bad_device"].startswith("KernelError: aclrtGetDeviceInfo failed with ACL error 107001")
    assert "stand-in: no device 7" in npu["bad_device"]
    assert npu["bad_info"].startswith("ValueError: device_info(RT_MODULE_TYPE_AICPU, INFO_TYPE_VERSION)")


def test_memory_goes_through_acl_in_every_direction(npu):
    assert npu["round_trip"] and npu["helpers"]
    assert npu["live"] == [3, 3]  # the package and ACL agree
    calls = npu["memory_calls"]
    # the device opens at the first malloc, on the device set_platform chose
    assert calls[:3] == ["aclInit", "aclrtSetDevice 2", "aclrtCreateStream"]
    assert calls[3:] == [
        "aclrtMalloc 256 policy 0",
        "aclrtMalloc 256 policy 2",  # RT_MEMORY_POLICY_DEFAULT_PAGE_ONLY: ACL_MEM_MALLOC_NORMAL_ONLY
        "aclrtMemcpy host-to-device 256",
        "aclrtMemcpy device-to-device 256",
        "aclrtMemcpy device-to-host 256",
        "aclrtMemcpy host-to-host 256",
        "aclrtMalloc 256 policy 0",
        "aclrtMemcpy host-to-device 256",
        "aclrtMemcpy device-to-host 256",
    ]


def test_misuse_is_refused_with_a_reason(npu):
    assert npu["overrun"] == "ValueError: memcpy: 512 bytes overrun the destination's allocation"
    assert npu["managed"].startswith("ValueError: memcpy: RT_MEMCPY_MANAGED is not a direction aclrtMemcpy takes")
    assert npu["p2p"].startswith("ValueError: malloc: RT_MEMORY_POLICY_HUGE_PAGE_ONLY_P2P is not a policy")
    # a host address where the kind says device memory: ACL's refusal, with its message
    assert npu["wrong_side"].startswith("KernelError: aclrtMemcpy failed with ACL error 107000: stand-in:")
    assert npu["refusal_calls"] == ["aclrtMemcpy host-to-device 8"]  # only that one reached ACL
    assert npu["free_twice"].startswith("ValueError: free: ") and "freed twice?" in npu["free_twice"]
    assert "aclrtMalloc failed with ACL error 207001: stand-in: aclrtMalloc was told to fail" in npu["malloc_fails"]


def test_free_mem_frees_each_npu_allocation_with_acl(npu):
    assert npu["after_free_mem"] == [0, 0]
    assert npu["free_calls"] == ["aclrtFree", "aclrtFree"]


def test_launch_kernel_passes_npu_memory_as_it_is(tmp_path):
    """launch_kernel on the NPU (a fake CANN's bisheng, as test_config.py's): malloc's memory is the kernel's GM
    argument, passed as the device address itself (the argument block's first word), with no copies."""
    from test_config import FAKE_BISHENG, FAKE_LINKER

    bin_dir = tmp_path / "cann" / "compiler" / "ccec_compiler" / "bin"
    bin_dir.mkdir(parents=True)
    for name, text in (("bisheng", FAKE_BISHENG), ("ld.lld", FAKE_LINKER)):
        (bin_dir / name).write_text(text)
        (bin_dir / name).chmod(0o755)
    out = run_npu(tmp_path, LAUNCH_SCRIPT, {"ASCEND_HOME_PATH": str(tmp_path / "cann")})
    launches = [c.split() for c in out["calls"] if c.startswith("aclrtLaunchKernelWithHostArgs")]
    assert len(launches) == 1 and launches[0][1:3] == ["scale", "4"], out["calls"]
    block = bytes.fromhex(launches[0][3])
    assert int.from_bytes(block[:8], "little") == out["address"]
    assert int.from_bytes(block[8:12], "little") == 64
    assert not [c for c in out["calls"] if c.startswith(("aclrtMalloc", "aclrtMemcpy"))], out["calls"]
    assert "is not device memory" in out["host_buffer"]


def test_device_binaries_load_from_memory_and_launch(tmp_path):
    """register_device_binary_kernel / register_function / launch_kernel / unregister_device_binary_kernel on the
    NPU: aclrtBinaryLoadFromData, aclrtBinaryGetFunction, aclrtLaunchKernelWithHostArgs with the argument block
    the C parameter list makes, aclrtBinaryUnLoad."""
    out = run_npu(tmp_path, BINARY_SCRIPT)
    assert out["device_memory"] == out["host_memory"] == [i + 0.25 for i in range(8)]
    launch = out["launch_calls"]
    assert len(launch) == 2 and launch[1] == "aclrtSynchronizeStream", launch
    assert launch[0].startswith("aclrtLaunchKernelWithHostArgs standin_vadd 2 ")
    assert launch[0].endswith("08000000" + "00000000")  # n = 8 as an int32, the block padded to 8 bytes
    assert "Python int" in out["python_int"] and "ctypes" in out["python_int"]
    assert out["host_address"].startswith("ValueError: standin_vadd: argument 0 ")
    assert "not NPU memory malloc gave" in out["host_address"]
    assert out["unknown_binary"] == (
        "ValueError: register_function: 0x3039 is not one register_device_binary_kernel / register_function gave"
    )
    assert out["unload_calls"] == ["aclrtBinaryUnLoad"]
    assert out["after_unload"].startswith("ValueError: launch_kernel: ")


def test_without_cann_the_calls_say_what_to_install(monkeypatch):
    monkeypatch.delenv("ASC_ACL_LIBRARY", raising=False)
    config.set_platform(config.Backend.NPU, config.Platform.Ascend910B1, check=False)
    try:
        with pytest.raises(BackendUnavailableError, match=r"asc_npu_device_count: .*libascendcl.so.*install CANN"):
            rt.device_count()
        with pytest.raises(BackendUnavailableError, match=r"asc_npu_device_info: .*install CANN"):
            rt.device_info(rt.DeviceModuleType.RT_MODULE_TYPE_AICORE, rt.DeviceInfoType.INFO_TYPE_CORE_NUM)
        with pytest.raises(BackendUnavailableError, match=r"libascendcl.so could not be loaded.*install CANN"):
            rt.malloc(64)
        # the calls libasc's C ABI has no function for yet still say so
        with pytest.raises(rt.NpuRuntimeCallMissing, match="c2c_ctrl_addr on Backend.NPU .*rtGetC2cCtrlAddr"):
            rt.c2c_ctrl_addr()
    finally:
        config.set_platform(config.Backend.Model)
