"""Writes the caller forbade (issue 19): a buffer the kernel writes that its
owner marked read-only — numpy's flags.writeable, np.frombuffer of bytes, a
read-only np.memmap, a torch leaf tensor that requires grad — is refused
before anything runs, naming the argument. Which parameters a kernel writes
comes from the IR (asc_kernel_param_writes); read-only inputs are fine."""

import numpy as np
import pytest

import asc
import asc.lib.runtime as rt
from asc.errors import LaunchArgumentError

N = 64


@asc.jit
def copy_add(x: asc.GlobalAddress, z: asc.GlobalAddress, n: int):
    x_gm, z_gm = asc.GlobalTensor(), asc.GlobalTensor()
    x_gm.set_global_buffer(x, n)
    z_gm.set_global_buffer(z, n)
    t = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, n)
    asc.data_copy(t, x_gm, n)
    asc.set_flag(asc.HardEvent.MTE2_V, 0)
    asc.wait_flag(asc.HardEvent.MTE2_V, 0)
    asc.adds(t, t, 1.0, n)
    asc.set_flag(asc.HardEvent.V_MTE3, 0)
    asc.wait_flag(asc.HardEvent.V_MTE3, 0)
    asc.data_copy(z_gm, t, n)


@asc.jit
def poke(x: asc.GlobalAddress, z: asc.GlobalAddress, n: int):
    x_gm, z_gm = asc.GlobalTensor(), asc.GlobalTensor()
    x_gm.set_global_buffer(x, n)
    z_gm.set_global_buffer(z + 4, n - 4)  # an offset view of z
    z_gm.set_value(0, x_gm.get_value(0))  # a scalar write


def launch(kernel, x, z):
    kernel[1, rt.current_stream()](x, z, N)


def test_the_ir_knows_which_parameters_a_kernel_writes():
    x, z = np.ones(N, np.float32), np.zeros(N, np.float32)
    assert copy_add.specialise((x, z, N), {})[0].writes == [False, True, False]
    assert poke.specialise((x, z, N), {})[0].writes == [False, True, False]


@pytest.mark.parametrize("kernel", [copy_add, poke])
def test_a_read_only_output_is_refused_naming_it(kernel):
    x = np.ones(N, np.float32)
    z = np.zeros(N, np.float32)
    z.flags.writeable = False
    with pytest.raises(LaunchArgumentError, match=r"argument 'z' is read-only \(flags.writeable is False\), but "
                                                  r"the kernel writes it"):  # fmt: skip
        launch(kernel, x, z)
    assert (z == 0).all()


def test_an_array_made_read_only_after_a_cached_launch_is_refused():
    x, z = np.ones(N, np.float32), np.zeros(N, np.float32)
    launch(copy_add, x, z)
    launch(copy_add, x, z)  # the fast path remembers z
    assert (z == 2).all()
    z[:] = 0
    z.flags.writeable = False
    with pytest.raises(LaunchArgumentError, match="argument 'z' is read-only"):
        launch(copy_add, x, z)
    assert (z == 0).all()


def test_frombuffer_of_bytes_is_refused():
    x = np.ones(N, np.float32)
    z = np.frombuffer(bytes(4 * N), np.float32)
    launch(copy_add, x, np.zeros(N, np.float32))  # a plan exists: the fast path must refuse too
    with pytest.raises(LaunchArgumentError, match="argument 'z' is read-only"):
        launch(copy_add, x, z)


def test_a_read_only_memmap_is_refused_not_a_crash(tmp_path):
    path = tmp_path / "out.bin"
    np.zeros(N, np.float32).tofile(path)
    z = np.memmap(path, np.float32, mode="r", shape=(N,))
    with pytest.raises(LaunchArgumentError, match="argument 'z' is a read-only np.memmap, but the kernel writes it"):
        launch(copy_add, np.ones(N, np.float32), z)
    assert (np.fromfile(path, np.float32) == 0).all()


def test_read_only_inputs_are_fine():
    x = np.frombuffer(np.ones(N, np.float32).tobytes(), np.float32)
    z = np.zeros(N, np.float32)
    launch(copy_add, x, z)
    launch(copy_add, x, z)
    assert (z == 2).all()


def test_a_torch_leaf_that_requires_grad_is_refused_as_torch_does():
    torch = pytest.importorskip("torch")
    x = torch.ones(N)
    z = torch.zeros(N, requires_grad=True)
    launch(copy_add, x, torch.zeros(N))  # a plan exists
    with pytest.raises(LaunchArgumentError, match=r"argument 'z' is a leaf tensor that requires grad.*"
                                                  r"cannot be used in an in-place operation"):  # fmt: skip
        launch(copy_add, x, z)
    assert (z.detach() == 0).all()
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):  # torch's own wording
        z.add_(1)
    with torch.no_grad():  # as torch allows in-place updates of parameters there
        launch(copy_add, x, z)
    assert (z.detach() == 2).all()
    w = torch.zeros(N, requires_grad=True)
    launch(copy_add, w, torch.zeros(N))  # a grad-requiring input is only read


def test_a_torch_tensor_in_an_autograd_graph_is_refused_when_written():
    """A non-leaf tensor that requires grad (the result of an op on one) written in place by a kernel: autograd
    cannot record the kernel, so the gradient through it would be silently wrong — refused while grad mode is on."""
    torch = pytest.importorskip("torch")
    x = torch.ones(N)
    leaf = torch.ones(N, requires_grad=True)
    z = leaf * 3  # not a leaf; part of the graph
    for _ in range(2):  # the slow path, then with a plan for these types
        with pytest.raises(LaunchArgumentError, match=r"argument 'z' requires grad.*autograd cannot record"):
            launch(copy_add, x, z)
    assert (z.detach() == 3).all()
    with torch.no_grad():
        launch(copy_add, x, z)
    assert (z.detach() == 2).all()


def test_a_written_torch_tensor_has_its_version_bumped_so_autograd_sees_the_overwrite():
    """As torch's in-place ops do: a tensor saved for backward and then overwritten by a kernel makes backward
    fail with torch's own error instead of computing a wrong gradient."""
    torch = pytest.importorskip("torch")
    x = torch.ones(N)
    out = torch.zeros(N)
    for path in ("slow", "fast"):
        before = out._version
        launch(copy_add, x, out)
        assert out._version > before, path
    leaf = torch.full((N,), 2.0, requires_grad=True)
    saved = leaf.exp()  # exp saves its result for backward
    with torch.no_grad():
        launch(copy_add, x, saved)  # overwrites what backward needs
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        saved.sum().backward()
