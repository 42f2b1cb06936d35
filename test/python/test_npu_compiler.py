"""The NPU build in Python (asc.runtime.compiler.Compiler over asc._C's stages), against a fake bisheng and
ld.lld that record their arguments and write their outputs: the commands of each kernel type, the failure
report, the pass pipeline, the cache, and the stages patched as pyasc's unit tests patch them."""

import os
import subprocess
from pathlib import Path
from unittest.mock import patch

import pytest

import asc
import asc._C as C
import asc.lib.runtime as rt
from asc.runtime import compiler as npu
from asc.runtime.compiler import CompileOptions, Compiler
from asc.runtime.config import KernelType
from asc.runtime.jit import MockTensor, MockValue

FAKE_BISHENG = """#!/bin/sh
echo "bisheng $*" >> "$ASC_FAKE_LOG"
[ "$1" = --version ] && { echo "fake bisheng 9.9"; exit 0; }
[ -n "$ASC_FAKE_FAIL" ] && { echo "kernel.cpp:3:1: error: $ASC_FAKE_FAIL"; exit 3; }
out=; prev=
for a in "$@"; do [ "$prev" = -o ] && out=$a; prev=$a; done
{ echo "object of $*"; cat kernel.cpp; } > "$out"
"""

FAKE_LINKER = """#!/bin/sh
echo "ld.lld $*" >> "$ASC_FAKE_LOG"
out=; prev=; ins=
for a in "$@"; do [ "$prev" = -o ] && out=$a; case $a in *.o) [ "$prev" = -o ] || ins="$ins $a";; esac; prev=$a; done
cat $ins > "$out"
"""


@pytest.fixture
def toolchain(tmp_path, monkeypatch):
    """PYASC_COMPILER / PYASC_LINKER name the fakes; returns the log of their calls."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for name, text in (("bisheng", FAKE_BISHENG), ("ld.lld", FAKE_LINKER)):
        (bin_dir / name).write_text(text)
        (bin_dir / name).chmod(0o755)
    log = tmp_path / "calls.log"
    monkeypatch.setenv("PYASC_COMPILER", str(bin_dir / "bisheng"))
    monkeypatch.setenv("PYASC_LINKER", str(bin_dir / "ld.lld"))
    monkeypatch.setenv("ASC_FAKE_LOG", str(log))
    monkeypatch.delenv("ASC_FAKE_FAIL", raising=False)
    monkeypatch.delenv("ASCEND_HOME_PATH", raising=False)
    return log


def calls(log: Path) -> list[list[str]]:
    return [line.split() for line in log.read_text().splitlines()] if log.exists() else []


def scale_body(x: asc.GlobalAddress, n: int):
    x_gm = asc.GlobalTensor()
    x_gm.set_global_buffer(x, n)
    t = asc.LocalTensor(asc.float16, asc.TPosition.VECCALC, 0, n)
    asc.data_copy(t, x_gm, n)
    asc.set_flag(asc.HardEvent.MTE2_V, 0)
    asc.wait_flag(asc.HardEvent.MTE2_V, 0)
    asc.muls(t, t, 2.0, n)
    asc.set_flag(asc.HardEvent.V_MTE3, 0)
    asc.wait_flag(asc.HardEvent.V_MTE3, 0)
    asc.data_copy(x_gm, t, n)


def module_of(kernel_type=None, fn=scale_body) -> C.ir.KernelModule:
    options = {} if kernel_type is None else {"kernel_type": kernel_type}
    compiled = asc.jit(fn, **options).compile(MockTensor(asc.float16), MockValue(asc.int32))
    return C.ir.KernelModule(compiled.handle)


def hinted_copy(x: asc.GlobalAddress, n: int):
    x_gm = asc.GlobalTensor()
    x_gm.set_global_buffer(x, n)
    x_gm.set_l2_cache_hint(asc.CacheMode.CACHE_MODE_DISABLE)
    t = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, 0, 128)
    asc.data_copy(t, x_gm[16:], 128)


def test_the_l2_cache_hint_is_emitted_as_a_copy_of_the_tensor():
    """SetL2CacheHint is for custom-operator projects only: the emitted kernel copies the tensor (which the Model's
    timing reads the hint from) and goes on with the copy, without the call."""
    src = C.translation.ir_to_ascendc(module_of(fn=hinted_copy))
    assert "SetL2CacheHint" not in src
    copied = [line.split()[1] for line in src.splitlines() if line.strip().startswith("AscendC::GlobalTensor<half> v")]
    assert len(copied) == 3, src  # the tensor, its hinted copy, the slice of the copy
    assert f"= {copied[0].rstrip(';')};" in src and f"= {copied[1]}[" in src


# kernel type -> (core type, [(arch, object)] compiled, in order)
BUILDS = {
    KernelType.AIV_ONLY: (rt.CoreType.VectorCore, [("dav-c220-vec", "kernel_aiv.o")]),
    KernelType.MIX_AIV_HARD_SYNC: (rt.CoreType.VectorCore, [("dav-c220-vec", "kernel_aiv.o")]),
    KernelType.AIC_ONLY: (rt.CoreType.CubeCore, [("dav-c220-cube", "kernel_aic.o")]),
    KernelType.MIX_AIC_1_1: (rt.CoreType.AiCore, [("dav-c220-cube", "kernel_aic.o"), ("dav-c220-vec", "kernel_aiv.o")]),
    KernelType.MIX_AIC_1_2: (rt.CoreType.AiCore, [("dav-c220-cube", "kernel_aic.o"), ("dav-c220-vec", "kernel_aiv.o")]),
}


@pytest.mark.parametrize("kernel_type", list(BUILDS), ids=lambda k: k.name)
def test_each_kernel_type_compiles_one_object_per_core_type_and_links_them(toolchain, kernel_type):
    core_type, objects = BUILDS[kernel_type]
    module = module_of(kernel_type)
    with patch("subprocess.Popen", wraps=subprocess.Popen) as popen:
        compiled = Compiler(CompileOptions(kernel_type=kernel_type)).run(module, "scale_body")
    assert popen.call_count == len(objects) + 1
    assert compiled.core_type == core_type
    made = calls(toolchain)
    assert len(made) == len(objects) + 1
    for (arch, obj), cmd in zip(objects, made):
        assert cmd[0] == "bisheng" and f"--cce-aicore-arch={arch}" in cmd and "--cce-aicore-only" in cmd
        assert cmd[cmd.index("-o") + 1] == obj and "kernel.cpp" in cmd and "-std=c++17" in cmd
        assert "--cce-auto-sync" not in cmd  # the kernel carries its own flags
        mix = kernel_type in (KernelType.MIX_AIC_1_1, KernelType.MIX_AIC_1_2)
        assert ("-D__MIX_CORE_MACRO__=1" in cmd) == mix
        assert ("-D__MIX_CORE_AIC_RATION__=1" in cmd) == (kernel_type == KernelType.MIX_AIC_1_1)
    link = made[-1]
    assert link[0] == "ld.lld" and link[link.index("-o") + 1] == "kernel.o"
    assert [a for a in link if a.endswith(".o") and a != "kernel.o"] == [obj for _, obj in objects]
    # the binary is the link's output: the objects' contents, each holding the emitted Ascend C
    text = compiled.binary.decode()
    assert text.count('extern "C" __global__ __aicore__ void scale_body(') == len(objects)
    assert [c[0] for c in compiled.commands] == [str(Path(os.environ["PYASC_COMPILER"]))] * len(objects) + [
        os.environ["PYASC_LINKER"]
    ]


def test_ascend_950_kernels_are_compiled_for_dav_c310(toolchain):
    compiler = Compiler(CompileOptions(kernel_type=KernelType.MIX_AIC_1_2))
    compiler.soc_version = rt.Platform.Ascend950PR_9599
    compiler.run(module_of(KernelType.MIX_AIC_1_2), "scale_body")
    archs = [a for cmd in calls(toolchain)[:-1] for a in cmd if a.startswith("--cce-aicore-arch=")]
    assert archs == ["--cce-aicore-arch=dav-c310-cube", "--cce-aicore-arch=dav-c310-vec"]


def test_a_kernel_is_compiled_as_the_type_it_was_built_with(toolchain):
    module = module_of(KernelType.MIX_AIC_1_2)
    compiled = Compiler().run(module, "scale_body")  # no kernel_type option: the kernel's own
    assert compiled.core_type == rt.CoreType.AiCore and len(calls(toolchain)) == 3
    with pytest.raises(RuntimeError, match="built as MIX_AIC_1_2; it cannot be compiled as AIV_ONLY"):
        Compiler(CompileOptions(kernel_type=KernelType.AIV_ONLY)).run(module, "scale_body")


def test_a_failing_compile_is_retried_then_reported_with_its_output_and_command(toolchain, monkeypatch):
    monkeypatch.setenv("ASC_FAKE_FAIL", "no member named 'Muls'")
    with pytest.raises(RuntimeError) as info:
        Compiler().run(module_of(), "scale_body")
    message = str(info.value)
    assert "bisheng failed (exit 3) building kernel 'scale_body'" in message
    assert "kernel.cpp:3:1: error: no member named 'Muls'" in message  # the compiler's output
    assert "fake bisheng 9.9" in message  # its version
    assert "Please rerun" in message and "--cce-aicore-arch=dav-c220-vec" in message
    made = calls(toolchain)
    assert len(made) == 3  # the compile, once more without machine LICM, the version: no link
    assert "-disable-machine-licm" not in made[0] and made[1][1:4] == ["-c", "-mllvm", "-disable-machine-licm"]
    assert made[2] == ["bisheng", "--version"]


def test_a_failing_link_is_reported(toolchain, tmp_path, monkeypatch):
    (tmp_path / "bin" / "ld.lld").write_text("#!/bin/sh\necho 'ld.lld: error: undefined symbol: foo'\nexit 1\n")
    with pytest.raises(RuntimeError, match=r"(?s)the link failed \(exit 1\).*undefined symbol: foo.*Please rerun"):
        Compiler().run(module_of(), "scale_body")


def test_no_compiler_is_reported_at_run_with_what_to_set(monkeypatch):
    monkeypatch.setenv("PYASC_COMPILER", "/nonexistent/bisheng")
    monkeypatch.delenv("ASCEND_HOME_PATH", raising=False)
    compiler = Compiler()  # options alone need no CANN
    with pytest.raises(npu.CompilerNotFoundError, match="ASCEND_HOME_PATH is not set"):
        compiler.run(module_of(), "scale_body")


def test_the_cache_keeps_the_binary_and_a_second_build_runs_nothing(toolchain, tmp_path):
    module = module_of()
    first = Compiler(cache_dir=tmp_path / "cache").run(module, "scale_body")
    assert first.path is not None and first.path.read_bytes() == first.binary and len(calls(toolchain)) == 2
    assert not list(first.path.parent.glob("build.*"))  # the build directory is gone
    with patch("subprocess.Popen") as popen:
        second = Compiler(cache_dir=tmp_path / "cache").run(module, "scale_body")
    assert popen.call_count == 0 and second.path == first.path and second.binary == first.binary


def test_the_stages_are_called_through_asc_C_and_can_be_patched(toolchain):
    module = module_of()
    with (
        patch("asc._C.translation.ir_to_ascendc", return_value="// patched source\n") as translate,
        patch("asc._C.passes.ascendc.add_insert_sync") as insert_sync,
    ):
        compiled = Compiler(CompileOptions(insert_sync=True)).run(module, "scale_body")
    assert translate.call_count == 1 and insert_sync.call_count == 1
    assert "// patched source" in compiled.binary.decode()


def test_the_pass_pipeline_names_every_step_and_does_its_own(toolchain, capsys):
    module = module_of()
    pm = C.passes.PassManager(module.get_context())
    Compiler(CompileOptions(strip_loc=True))._schedule_passes(pm, insert_sync=True)
    names = {p.name: p.done_by for p in pm.passes}
    assert names["insert_sync"] == "libasc" and names["detect_kernel_type"] == "asc._C"
    assert names["strip_debug_info"] == "asc._C"
    assert "#line" in C.translation.ir_to_ascendc(module)
    pm.run(module)
    assert "#line" not in C.translation.ir_to_ascendc(module)  # strip_debug_info
    assert not module.op.has_unit_attr("asc.compile_mix") and not module.op.has_unit_attr("asc.enable_debug")
    Compiler(CompileOptions(print_ir_before_all=True)).run_passes(module)
    assert "IR before detect_kernel_type (asc._C)" in capsys.readouterr().err


def prints(x: asc.GlobalAddress, n: int):
    asc.printf("n = %d\n", n)


def test_detect_passes_mark_mix_and_printing_kernels(toolchain):
    mix = module_of(KernelType.MIX_AIC_1_1)
    Compiler().run_passes(mix)
    assert mix.op.has_unit_attr("asc.compile_mix")
    printing = module_of(fn=prints)
    Compiler().run_passes(printing)
    assert printing.op.has_unit_attr("asc.enable_debug")


def test_kernel_arg_attrs_are_the_parameters_and_what_the_kernel_writes(toolchain):
    args = C.ir.get_kernel_arg_attrs(module_of())
    assert [(a.index, a.type, a.writes) for a in args] == [(0, "!gm_addr<f16>", True), (1, "i32", False)]


def test_only_npu_devices_take_a_compiler_and_kernel_options_have_names():
    from asc._ffi import ffi, last_error, lib
    from asc.lib.runtime import state

    device = ffi.new("asc_device_t**")
    assert lib.asc_device_create(lib.ASC_BACKEND_MODEL, b"Ascend910B1", 11, 0, device) == lib.ASC_OK
    try:
        status = lib.asc_device_set_npu_compiler(device[0], state._npu_compile_callback, ffi.NULL)
        assert status == lib.ASC_ERR_INVALID_ARGUMENT
        assert "the Model backend compiles no kernels for the NPU" in last_error()[0]
    finally:
        lib.asc_device_destroy(device[0])
    module = module_of(KernelType.MIX_AIV_HARD_SYNC)
    assert module.kernel_type == KernelType.MIX_AIV_HARD_SYNC.value and module.option("auto_sync") == 1
    with pytest.raises(
        RuntimeError, match="unknown kernel option 'sync' .known: auto_sync, buffer_tokens, insert_sync"
    ):
        module.option("sync")


FAILING_BISHENG = """#!/bin/sh
[ "$1" = --version ] && { echo "fake bisheng 9.9"; exit 0; }
echo "kernel.cpp:3:1: error: no member named 'Muls'"; exit 1
"""


def test_a_launch_on_the_npu_fails_with_the_build_s_error(tmp_path):
    """The device's compiler is the Compiler: its failure is the launch's error, with the compiler's output and
    the command to rerun, and the Model still runs."""
    from test_config import FAKE_LINKER, run_npu_script

    bin_dir = tmp_path / "cann" / "compiler" / "ccec_compiler" / "bin"
    bin_dir.mkdir(parents=True)
    for name, text in (("bisheng", FAILING_BISHENG), ("ld.lld", FAKE_LINKER)):
        (bin_dir / name).write_text(text)
        (bin_dir / name).chmod(0o755)
    out = run_npu_script(tmp_path, {"ASCEND_HOME_PATH": str(tmp_path / "cann")})
    assert out.returncode == 0, out.stderr
    failures = [line for line in out.stdout.splitlines() if line.startswith("NPU: ")]
    assert len(failures) == 2 and all("Backend.NPU: compiling kernel 'scale'" in f for f in failures), out.stdout
    assert "bisheng failed (exit 1) building kernel 'scale'" in out.stdout
    assert "error: no member named 'Muls'" in out.stdout and "fake bisheng 9.9" in out.stdout
    assert "Please rerun (in " in out.stdout and "aclrtLaunchKernelWithHostArgs" not in out.stdout
    assert "Model: 2.0" in out.stdout
