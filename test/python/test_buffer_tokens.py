"""Ascend 950's buffer tokens, asc.get_buf / asc.rls_buf: accesses of one buffer from different pipes, each
between its get_buf and rls_buf, run in program order; the sanitizer sees that order, and misuse is a clear
error. Atlas A2/A3 have no buffer tokens."""

import inspect
import re
import warnings

import numpy as np
import pytest

import asc
import asc.lib.runtime as rt
import asc.runtime.config as config
from asc.errors import DeadlockError, KernelError, RaceError, SyncWarning

from kernels import ascendc_source

N = 256
V, MTE2, MTE3 = asc.PipeID.PIPE_V, asc.PipeID.PIPE_MTE2, asc.PipeID.PIPE_MTE3


@asc.jit
def add_tokens(x: asc.GlobalAddress, z: asc.GlobalAddress, TOKENS: asc.ConstExpr[bool]):
    """z = x + x through two Unified Buffer tensors, buffer 0 (a) and 1 (c); without TOKENS, no synchronisation."""
    x_gm = asc.GlobalTensor()
    z_gm = asc.GlobalTensor()
    x_gm.set_global_buffer(x, N)
    z_gm.set_global_buffer(z, N)
    a = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, N)
    c = asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, N * 4, N)
    if TOKENS:
        asc.get_buf(MTE2, 0)
    asc.data_copy(a, x_gm, N)
    if TOKENS:
        asc.rls_buf(MTE2, 0)
        asc.get_buf(V, 0)
        asc.get_buf(V, 1)
    asc.add(c, a, a, N)
    if TOKENS:
        asc.rls_buf(V, 1)
        asc.rls_buf(V, 0)
        asc.get_buf(MTE3, 1)
    asc.data_copy(z_gm, c, N)
    if TOKENS:
        asc.rls_buf(MTE3, 1)


@asc.jit
def misuse(x: asc.GlobalAddress, CASE: asc.ConstExpr[str]):
    a = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, 0, N)
    if CASE == "unacquired":
        asc.rls_buf(V, 3)
    if CASE == "other pipe":
        asc.get_buf(MTE2, 3)
        asc.rls_buf(V, 3)
    if CASE == "held":
        asc.get_buf(V, 5)
        asc.duplicate(a, 1.0, N)
    if CASE == "deadlock":
        asc.get_buf(V, 2)
        asc.get_buf(MTE3, 2)  # waits for V's release, which never comes
        asc.pipe_barrier(asc.PipeID.PIPE_ALL)


@pytest.fixture
def on_950():
    config.set_platform(config.Backend.Model, config.Platform.Ascend950PR_9599)
    yield
    config.set_platform(config.Backend.Model, config.Platform.Ascend910B1)


def line_of(kernel, text):
    lines, start = inspect.getsourcelines(kernel.fn)
    return start + next(i for i, line in enumerate(lines) if text in line)


def test_tokens_order_the_pipes_and_the_sanitizer_sees_it(on_950, rng):
    x = rng.random(N, dtype=np.float32)
    z = np.zeros_like(x)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        add_tokens[1, rt.current_stream()](x, z, True)
    np.testing.assert_array_equal(z, x + x)
    assert rt.last_launch_stats().warnings == ()


def test_without_tokens_the_same_kernel_races(on_950):
    x = np.ones(N, np.float32)
    with pytest.raises(RaceError, match="read-after-write"):
        add_tokens[1, rt.current_stream()](x, np.zeros_like(x), False)


def test_the_emitted_ascend_c_spells_the_intrinsics(on_950):
    text = ascendc_source(add_tokens.compile(np.zeros(N, np.float32), np.zeros(N, np.float32), True))
    assert re.search(r"\n  get_buf\(PIPE_MTE2, static_cast<uint64_t>\(v\d+\), false\);", text)
    assert re.search(r"\n  rls_buf\(PIPE_MTE3, static_cast<uint64_t>\(v\d+\), false\);", text)


def test_misuse_is_an_error_at_the_line(on_950):
    x = np.zeros(N, np.float32)
    with pytest.raises(KernelError, match=r"rls_buf\(PIPE_V, 3\) releases a buffer id PIPE_V does not hold:"):
        misuse[1, rt.current_stream()](x, "unacquired")
    with pytest.raises(KernelError, match=r"PIPE_MTE2's get_buf at .*test_buffer_tokens.py:\d+:\d+ holds it"):
        misuse[1, rt.current_stream()](x, "other pipe")
    with pytest.raises(DeadlockError, match=r"get_buf\(PIPE_MTE3, 2\) can never complete: PIPE_V's get_buf at") as e:
        misuse[1, rt.current_stream()](x, "deadlock")
    assert f"test_buffer_tokens.py:{line_of(misuse, 'asc.get_buf(MTE3, 2)')}" in str(e.value)


def test_a_buffer_held_at_the_end_is_a_warning(on_950):
    with pytest.warns(SyncWarning, match=r"get_buf\(PIPE_V, 5\) at .* is never released"):
        misuse[1, rt.current_stream()](np.zeros(N, np.float32), "held")


def test_atlas_a2_has_no_buffer_tokens():
    x = np.ones(N, np.float32)
    with pytest.raises(KernelError, match=r"Ascend910B1 \(Atlas A2/A3\) has no buffer tokens"):
        add_tokens[1, rt.current_stream()](x, np.zeros_like(x), True)


def test_bad_arguments_are_refused_when_compiling(on_950):
    @asc.jit
    def bad(x: asc.GlobalAddress, CASE: asc.ConstExpr[int]):
        if CASE == 0:
            asc.get_buf(asc.PipeID.PIPE_ALL, 0)
        if CASE == 1:
            asc.get_buf(V, 32)
        if CASE == 2:
            asc.rls_buf(V, 0, mode=2)

    x = np.zeros(8, np.float32)
    with pytest.raises(asc.errors.CodegenError, match="pipe must be one pipe, not PIPE_ALL"):
        bad[1, rt.current_stream()](x, 0)
    with pytest.raises(asc.errors.CodegenError, match=r"buffer id 32 is out of range \(0..31\)"):
        bad[1, rt.current_stream()](x, 1)
    with pytest.raises(asc.errors.CodegenError, match="mode is a compile-time bool"):
        bad[1, rt.current_stream()](x, 2)
