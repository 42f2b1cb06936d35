"""Backends and platforms."""

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from npu_scripts import SCALE_KERNEL

import asc.lib.runtime as rt
import asc.runtime.config as config
from asc.errors import BackendUnavailableError

from kernels import BUFFER_NUM, TILE_NUM, vadd_manual_sync


@pytest.mark.parametrize("platform", list(config.Platform))
def test_every_platform_runs_the_model(platform, rng):
    config.set_platform("Model", platform.value)
    assert rt.current_platform() == platform.value
    block_length = TILE_NUM * BUFFER_NUM * 8
    x = rng.random(2 * block_length, dtype=np.float32)
    z = np.zeros_like(x)
    vadd_manual_sync[2, rt.current_stream()](x, x, z, block_length)
    np.testing.assert_array_equal(z, x + x)


def test_npu_without_cann_is_a_clear_error(rng, monkeypatch):
    monkeypatch.delenv("ASC_ACL_LIBRARY", raising=False)
    with pytest.raises(BackendUnavailableError, match=r"libascendcl.so could not be loaded.*install CANN"):
        config.set_platform(config.Backend.NPU, config.Platform.Ascend910B1)
    config.set_platform(config.Backend.Model)  # the Model keeps working
    assert rt.is_model() and rt.is_available()
    x = rng.random(2 * TILE_NUM * BUFFER_NUM * 8, dtype=np.float32)
    z = np.zeros_like(x)
    vadd_manual_sync[2, rt.current_stream()](x, x, z, TILE_NUM * BUFFER_NUM * 8)
    np.testing.assert_array_equal(z, x + x)


NPU_SCRIPT = (
    """
import ctypes, os, sys
import numpy as np, asc, asc.lib.runtime as rt, asc.runtime.config as config

"""
    + SCALE_KERNEL
    + """

config.set_platform(config.Backend.NPU, config.Platform.Ascend910B1)  # ACL loads: the stand-in
x = np.ones(64, np.float32)
for _ in range(2):
    try:
        scale[1, rt.current_stream()](x, 64)
        print("NPU: launched")
    except Exception as e:
        print("NPU:", type(e).__name__, e)
calls = ctypes.CDLL(os.environ["ASC_ACL_LIBRARY"])
calls.standin_log.restype = ctypes.c_char_p
print("ACL:", calls.standin_log().decode().replace("\\n", "|"))
config.set_platform(config.Backend.Model)
scale[1, rt.current_stream()](x, 64)
print("Model:", x[0])
"""
)

FAKE_BISHENG = """#!/bin/sh
echo "$@" >> "$(dirname "$0")/args.log"
out=; src=; prev=
for a in "$@"; do [ "$prev" = -o ] && out=$a; case $a in *.cpp) src=$a;; esac; prev=$a; done
cp "$src" "$out"
"""

FAKE_LINKER = """#!/bin/sh
echo "$@" >> "$(dirname "$0")/ld.log"
out=; obj=; prev=
for a in "$@"; do [ "$prev" = -o ] && out=$a; case $a in *.o) [ -z "$obj" ] && obj=$a;; esac; prev=$a; done
cp "$obj" "$out"
"""


def run_npu_script(tmp_path: Path, env: dict) -> subprocess.CompletedProcess:
    build = Path(__file__).resolve().parents[2] / os.environ.get("BUILD_DIR", "build")
    standin = build / "test" / "standin_acl" / "libascendcl.so"
    assert standin.exists(), f"{standin} is built with the C++ tests (make build)"
    script = tmp_path / "npu.py"
    script.write_text(NPU_SCRIPT)
    env = {**os.environ, "ASC_ACL_LIBRARY": str(standin), "PYASC_CACHE_DIR": str(tmp_path / "cache"), **env}
    return subprocess.run([sys.executable, str(script)], env=env, capture_output=True, text=True, timeout=120)


def test_npu_without_the_cann_compiler_says_what_to_set(tmp_path, monkeypatch):
    """With an ACL to load (the C++ tests' stand-in libascendcl.so) but no ASCEND_HOME_PATH, the NPU device
    opens and the launch says what is missing; the Model still runs."""
    monkeypatch.delenv("ASCEND_HOME_PATH", raising=False)
    out = run_npu_script(tmp_path, {})
    assert out.returncode == 0, out.stderr
    assert "NPU: BackendUnavailableError" in out.stdout and "ASCEND_HOME_PATH is not set" in out.stdout
    assert "Model: 2.0" in out.stdout


def test_npu_compiles_with_bisheng_once_and_launches_through_acl(tmp_path):
    """A fake CANN tree (its bisheng copies the source to the object, its ld.lld the object to the binary) and
    the stand-in ACL: the kernel is emitted, compiled once by asc.runtime.compiler.Compiler (the device's
    compiler) with the flags for a vector kernel on Atlas A2, linked, loaded once and launched twice. The
    stand-in does not run emitted kernels: the results on an NPU are not checked here (there is none)."""
    bin_dir = tmp_path / "cann" / "compiler" / "ccec_compiler" / "bin"
    bin_dir.mkdir(parents=True)
    for name, text in (("bisheng", FAKE_BISHENG), ("ld.lld", FAKE_LINKER)):
        (bin_dir / name).write_text(text)
        (bin_dir / name).chmod(0o755)
    out = run_npu_script(tmp_path, {"ASCEND_HOME_PATH": str(tmp_path / "cann")})
    assert out.returncode == 0, out.stderr
    assert out.stdout.count("NPU: launched") == 2, out.stdout
    args = (bin_dir / "args.log").read_text().splitlines()
    assert len(args) == 1 and "--cce-aicore-arch=dav-c220-vec" in args[0] and "-std=c++17" in args[0]
    assert f"-I{tmp_path / 'cann' / 'compiler' / 'tikcpp' / 'tikcfw'}" in args[0].split()
    links = (bin_dir / "ld.log").read_text().splitlines()
    assert links == ["-m aicorelinux -Ttext=0 kernel_aiv.o -static -o kernel.o"]
    objects = list((tmp_path / "cache" / "npu").glob("*/kernel.o"))
    assert len(objects) == 1 and 'extern "C" __global__ __aicore__ void scale(GM_ADDR v0, int32_t v1)' in (
        objects[0].read_text()
    )
    acl = out.stdout.split("ACL: ")[1].split("\n")[0].split("|")
    assert acl.count(f"aclrtBinaryLoadFromFile {objects[0]}") == 1
    assert acl.count("aclrtBinaryGetFunction scale") == 1
    assert sum(c.startswith("aclrtLaunchKernelWithHostArgs scale 1 ") for c in acl) == 2
    assert "Model: 2.0" in out.stdout  # the stand-in left x alone; the Model then doubled it


def test_buffers_on_the_npu_pass_as_device_memory_and_other_devices_are_refused():
    """torch_npu tensors (device type "npu") bind as ASC_ARG_DEVICE_BUFFER; the Model refuses those
    (test_capi: CapiTest.LaunchChecksBlockDimAndArguments) and any other device is named."""
    from asc._ffi import lib
    from asc.errors import LaunchArgumentError
    from asc.runtime.arguments import buffer_of

    torch = pytest.importorskip("torch")

    class NpuTensor:  # what buffer_of reads of a torch_npu tensor
        device = type("Device", (), {"type": "npu"})()

        def is_contiguous(self):
            return True

        def data_ptr(self):
            return 0x12340000

        def numel(self):
            return 16

        def element_size(self):
            return 4

    assert buffer_of(NpuTensor(), "k", "x") == (0x12340000, 64, lib.ASC_ARG_DEVICE_BUFFER)
    cpu = torch.ones(8)
    assert buffer_of(cpu, "k", "x") == (cpu.data_ptr(), 32, lib.ASC_ARG_BUFFER)
    with pytest.raises(LaunchArgumentError, match=r"argument 'x' is on meta; asc takes numpy arrays, CPU tensors"):
        buffer_of(torch.empty(8, device="meta"), "k", "x")


def test_default_platform_is_910b1():
    config.set_platform("Model")
    assert rt.current_platform() == "Ascend910B1"
