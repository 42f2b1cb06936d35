"""The harness pyasc's own unit tests expect (issue 20): Launcher.run is the one call through which a kernel
runs (patching it makes launches compile-only), launch-time options (always_compile=True), MockTensor and
MockValue for compiling without data, and DRY_RUN."""

from unittest.mock import patch

import numpy as np
import pytest

import asc
from asc.errors import LaunchArgumentError
from asc.runtime.jit import MockTensor, MockValue
from asc.runtime.launcher import Launcher, LaunchOptions

N = 64


@asc.jit
def add_one(x: asc.GlobalAddress, z: asc.GlobalAddress, n: int):
    x_gm, z_gm = asc.GlobalTensor(), asc.GlobalTensor()
    x_gm.set_global_buffer(x, n)
    z_gm.set_global_buffer(z, n)
    t = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, n)
    asc.data_copy(t, x_gm, n)
    asc.set_flag(asc.HardEvent.MTE2_V, 0)
    asc.wait_flag(asc.HardEvent.MTE2_V, 0)
    asc.adds(t, t, 1.0, n)
    asc.set_flag(asc.HardEvent.V_MTE3, 0)
    asc.wait_flag(asc.HardEvent.V_MTE3, 0)
    asc.data_copy(z_gm, t, n)


def test_a_patched_launcher_run_makes_every_launch_compile_only():
    x, z = np.arange(N, dtype=np.float32), np.zeros(N, np.float32)
    add_one[1](x, z, N)  # a plan for the fast path exists: the patch must still be seen
    z[:] = 0
    with patch("asc.runtime.launcher.Launcher.run", return_value=None) as run:
        add_one[1](x, z, N)
        add_one[2](x, z, N)
    assert run.call_count == 2
    kernel, name, values = run.call_args_list[0].args
    assert name == "add_one" and "data_copy" in kernel.ir and values[2] == N
    assert (z == 0).all()  # nothing ran
    add_one[1](x, z, N)  # unpatched again: it runs
    np.testing.assert_array_equal(z, x + 1)


def test_launcher_run_unpatched_runs_the_compiled_kernel():
    x, z = np.arange(N, dtype=np.float32), np.zeros(N, np.float32)
    kernel = add_one.compile(x, z, N)
    Launcher(LaunchOptions(core_num=1)).run(kernel, "add_one", (x, z, N))
    np.testing.assert_array_equal(z, x + 1)
    with pytest.raises(ValueError, match="core number must be at least 1"):
        Launcher(LaunchOptions()).run(kernel, "add_one", (x, z, N))


def test_options_given_at_a_launch_apply_to_it():
    x, z = np.arange(N, dtype=np.float32), np.zeros(N, np.float32)
    add_one[1](x, z, N, always_compile=True)
    np.testing.assert_array_equal(z, x + 1)
    variant = add_one._variants[frozenset({("always_compile", True)})]
    assert variant.compile_options.always_compile and not add_one.compile_options.always_compile
    first = variant.compile(x, z, N)
    assert variant.compile(x, z, N) is not first  # compiled again every time
    with pytest.raises(TypeError, match="unknown @asc.jit option"):
        add_one[1](x, z, N, always_compil=True) if False else asc.jit(always_compil=True)(add_one.fn)


def test_mock_arguments_compile_without_data_and_a_real_launch_says_so():
    kernel = add_one.compile(MockTensor(asc.float32), MockTensor(asc.float32), MockValue(asc.int32))
    assert "data_copy" in kernel.ir and kernel.param_names == ["x", "z", "n"]
    with patch("asc.runtime.launcher.Launcher.run", return_value=None) as run:
        add_one[1](MockTensor(asc.float32), MockTensor(asc.float32), MockValue(asc.int32))
    assert run.call_count == 1
    with pytest.raises(LaunchArgumentError, match=r"argument 'x' is a MockTensor, which has no data.*compile"):
        add_one[1](MockTensor(asc.float32), np.zeros(N, np.float32), N)
    with pytest.raises(LaunchArgumentError, match="not a dtype"):
        add_one.compile(MockTensor("no such dtype"), MockTensor(asc.float32), N)


def test_dry_run_compiles_and_runs_nothing(monkeypatch):
    x, z = np.arange(N, dtype=np.float32), np.zeros(N, np.float32)
    add_one[1](x, z, N)  # a plan for the fast path exists: DRY_RUN must still be seen
    z[:] = 0
    monkeypatch.setenv("DRY_RUN", "1")
    add_one[1](x, z, N)
    assert (z == 0).all()
    monkeypatch.setenv("DRY_RUN", "")  # empty: not set, as os.environ.get says
    add_one[1](x, z, N)
    assert (z != 0).any()


def test_the_compile_and_launch_stages_can_be_mocked_by_their_pyasc_names():
    x, z = np.arange(N, dtype=np.float32), np.zeros(N, np.float32)
    add_one[1](x, z, N)  # a plan for the fast path exists: the patch must still be seen
    z[:] = 0
    with patch("asc.runtime.jit.JITFunction._run_launcher", return_value=None) as launcher:
        add_one[3](x, z, N)
    kernel, options, values = launcher.call_args.args
    assert "data_copy" in kernel.ir and options.core_num == 3 and values[2] == N
    assert (z == 0).all()  # nothing ran
    with (
        patch("asc.runtime.jit.JITFunction._run_compiler", return_value="built") as compiler,
        patch("asc.runtime.jit.JITFunction._run_launcher", return_value=None) as launcher,
    ):
        add_one[1](x, z, N)
    assert "data_copy" in compiler.call_args.args[0].ir
    assert launcher.call_args.args[0] == "built"  # the launcher runs what the compiler stage gave
    add_one[1](x, z, N)  # unpatched again: it runs
    np.testing.assert_array_equal(z, x + 1)


def test_pyasc_module_paths_and_messages_of_compile_and_argument_errors():
    from asc.codegen.errors import CodegenError

    assert CodegenError is asc.errors.CodegenError

    @asc.jit
    def fails_to_compile(num):
        assert 1 < 0, f"assert failed {num}"

    with pytest.raises(CodegenError, match=r"AssertionError: assert failed \{num\} \(num: known only at run time\)"):
        fails_to_compile[1](100)

    @asc.jit
    def prints(age):
        print(age)

    with pytest.raises(CodegenError, match="NameError: print is not defined in a kernel .* use asc.printf"):
        prints[1](100)

    @asc.jit
    def takes(name):
        pass

    with pytest.raises(TypeError, match="Argument type in JIT function is not supported: str; kernels take"):
        takes[1]("test")
