"""A kernel never runs with values it read at an earlier compile (issue 19).

Whatever a kernel reads at compile time is either part of every cache key —
the in-memory specialisation cache, the launch fast path's plans and the disk
cache — or refused with an error saying why: module constants and tuples of
them (by typed value), closure cells rebound with ``nonlocal``, module
attributes read by device functions called as ``mod.f(...)``, the code of
helpers reached as module attributes. Mutable containers and the attributes
of user objects cannot be keyed soundly and are refused."""

import importlib
import sys

import numpy as np
import pytest

import asc
import asc.lib.runtime as rt
from asc.runtime import disk_cache

N = 64
PAIR = (1.0, 2.0)  # a module-level tuple constant
TABLE = [1.0, 2.0]  # a module-level list: refused
SETTINGS = {"scale": 2.0}  # a dict: refused, from a helper too


@asc.jit
def fill_pair(z: asc.GlobalAddress, n: int):
    z_gm = asc.GlobalTensor()
    z_gm.set_global_buffer(z, n)
    t = asc.LocalTensor(z.dtype, asc.TPosition.VECOUT, 0, n)
    asc.duplicate(t, PAIR[0] + PAIR[1], n)
    asc.set_flag(asc.HardEvent.V_MTE3, 0)
    asc.wait_flag(asc.HardEvent.V_MTE3, 0)
    asc.data_copy(z_gm, t, n)


@asc.jit
def fill_const(z: asc.GlobalAddress, n: int, value: asc.ConstExpr[float]):
    z_gm = asc.GlobalTensor()
    z_gm.set_global_buffer(z, n)
    t = asc.LocalTensor(z.dtype, asc.TPosition.VECOUT, 0, n)
    asc.duplicate(t, value, n)
    asc.set_flag(asc.HardEvent.V_MTE3, 0)
    asc.wait_flag(asc.HardEvent.V_MTE3, 0)
    asc.data_copy(z_gm, t, n)


def launch(kernel, *extra):
    z = np.zeros(N, np.float32)
    kernel[1, rt.current_stream()](z, N, *extra)
    return z


def test_a_module_tuple_constant_rebound_between_launches_recompiles():
    global PAIR
    assert (launch(fill_pair) == 3.0).all()
    assert (launch(fill_pair) == 3.0).all()  # the fast path
    old = PAIR
    try:
        PAIR = (10.0, 20.0)
        assert (launch(fill_pair) == 30.0).all()
        assert (launch(fill_pair) == 30.0).all()
        PAIR = (10, 20.0)  # equal to the last one, but an int now: its own key
        assert (launch(fill_pair) == 30.0).all()
        assert len(fill_pair._cache) == 3
    finally:
        PAIR = old
    assert (launch(fill_pair) == 3.0).all()


def test_a_closure_variable_rebound_with_nonlocal_recompiles():
    scale = 2.0

    @asc.jit
    def fill_closure(z: asc.GlobalAddress, n: int):
        z_gm = asc.GlobalTensor()
        z_gm.set_global_buffer(z, n)
        t = asc.LocalTensor(z.dtype, asc.TPosition.VECOUT, 0, n)
        asc.duplicate(t, scale, n)
        asc.set_flag(asc.HardEvent.V_MTE3, 0)
        asc.wait_flag(asc.HardEvent.V_MTE3, 0)
        asc.data_copy(z_gm, t, n)

    def set_scale(value):
        nonlocal scale
        scale = value

    assert (launch(fill_closure) == 2.0).all()
    assert (launch(fill_closure) == 2.0).all()
    set_scale(5.0)
    assert (launch(fill_closure) == 5.0).all()
    assert (launch(fill_closure) == 5.0).all()
    set_scale(2.0)
    assert (launch(fill_closure) == 2.0).all()


HELPER_MODULE = """
import asc

FACTOR = {factor}

@asc.jit
def scaled(t: asc.LocalTensor, n: int):
    asc.duplicate(t, FACTOR * {multiplier}, n)

def offset():
    return {offset}
"""

KERNEL_MODULE = """
import asc
import {helpers} as helpers

@asc.jit
def fill_mod(z: asc.GlobalAddress, n: int):
    z_gm = asc.GlobalTensor()
    z_gm.set_global_buffer(z, n)
    t = asc.LocalTensor(z.dtype, asc.TPosition.VECOUT, 0, n)
    helpers.scaled(t, n)
    asc.adds(t, t, helpers.offset(), n)
    asc.set_flag(asc.HardEvent.V_MTE3, 0)
    asc.wait_flag(asc.HardEvent.V_MTE3, 0)
    asc.data_copy(z_gm, t, n)
"""


def load_modules(tmp_path, name, factor=2.0, multiplier=1, offset=0):
    helpers = f"{name}_helpers"
    (tmp_path / f"{helpers}.py").write_text(HELPER_MODULE.format(factor=factor, multiplier=multiplier, offset=offset))
    (tmp_path / f"{name}.py").write_text(KERNEL_MODULE.format(helpers=helpers))
    sys.path.insert(0, str(tmp_path))
    try:
        for module in (helpers, name):
            sys.modules.pop(module, None)
        importlib.invalidate_caches()
        return importlib.import_module(name)
    finally:
        sys.path.remove(str(tmp_path))


def test_a_module_attribute_read_by_a_device_function_called_as_mod_f(tmp_path):
    module = load_modules(tmp_path, "k_mod_attr")
    assert (launch(module.fill_mod) == 2.0).all()
    assert (launch(module.fill_mod) == 2.0).all()
    module.helpers.FACTOR = 7.0  # changed at run time
    assert (launch(module.fill_mod) == 7.0).all()
    assert (launch(module.fill_mod) == 7.0).all()


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("PYASC_CACHE_DIR", str(tmp_path / "cache"))


def launch_afresh(kernel):
    """One launch with the in-memory caches emptied (as in a new process): (disk hits, misses), result."""
    kernel._cache.clear()
    kernel._plans.clear()
    kernel._launch_key = None
    kernel._launchers.clear()
    before = dict(disk_cache.stats)
    z = launch(kernel)
    return (disk_cache.stats["hits"] - before["hits"], disk_cache.stats["misses"] - before["misses"]), z


@pytest.mark.parametrize("edit", ["device_function", "plain_helper"])
def test_editing_a_helper_modules_source_misses_the_disk_cache(cache, tmp_path, edit):
    module = load_modules(tmp_path, f"k_edit_{edit}")
    counts, z = launch_afresh(module.fill_mod)
    assert counts == (0, 1) and (z == 2.0).all()
    counts, z = launch_afresh(module.fill_mod)
    assert counts == (1, 0) and (z == 2.0).all()
    # the helper module's source edited, as a later process imports it (the kernel's module is unchanged)
    edited = dict(multiplier=3) if edit == "device_function" else dict(offset=4)
    module = load_modules(tmp_path, f"k_edit_{edit}", **edited)
    counts, z = launch_afresh(module.fill_mod)
    assert counts == (0, 1)
    assert (z == 6.0).all()  # 2 * 3, or 2 + 4


def test_a_nan_constexpr_does_not_make_a_cache_entry_per_launch():
    for _ in range(5):
        assert np.isnan(launch(fill_const, float("nan"))).all()  # a new NaN object each time
    assert len(fill_const._cache) == 1
    assert len(fill_const._plans) == 1


def test_zero_and_minus_zero_are_different_constexprs():
    assert not np.signbit(launch(fill_const, 0.0)).any()
    assert np.signbit(launch(fill_const, -0.0)).all()
    assert np.signbit(launch(fill_const, -0.0)).all()  # the fast path
    assert not np.signbit(launch(fill_const, 0.0)).any()


def test_a_module_list_read_at_compile_time_is_refused():
    @asc.jit
    def fill_list(z: asc.GlobalAddress, n: int):
        z_gm = asc.GlobalTensor()
        z_gm.set_global_buffer(z, n)
        t = asc.LocalTensor(z.dtype, asc.TPosition.VECOUT, 0, n)
        asc.duplicate(t, TABLE[0], n)

    with pytest.raises(asc.CodegenError, match=r"reads 'TABLE' at compile time, a list, which can change") as e:
        launch(fill_list)
    assert "test_stale_kernels.py" in str(e.value) and "use a tuple" in str(e.value)


WEIGHTS = np.ones(4, np.float32)  # an array read at compile time: refused too


def test_a_module_array_read_at_compile_time_is_refused():
    @asc.jit
    def fill_array(z: asc.GlobalAddress, n: int):
        t = asc.LocalTensor(z.dtype, asc.TPosition.VECOUT, 0, n)
        asc.duplicate(t, float(WEIGHTS[0]), n)

    with pytest.raises(asc.CodegenError, match=r"reads 'WEIGHTS' at compile time, a ndarray, which can change"):
        launch(fill_array)


def scale_setting():  # a plain helper the kernel calls while compiling
    return SETTINGS["scale"]


def test_a_helper_reading_a_dict_is_refused():
    @asc.jit
    def fill_helper(z: asc.GlobalAddress, n: int):
        z_gm = asc.GlobalTensor()
        z_gm.set_global_buffer(z, n)
        t = asc.LocalTensor(z.dtype, asc.TPosition.VECOUT, 0, n)
        asc.duplicate(t, scale_setting(), n)

    with pytest.raises(asc.CodegenError, match=r"helper scale_setting\(\) reads 'SETTINGS' at compile time, a dict"):
        launch(fill_helper)


class Config:
    def __init__(self):
        self.value = 1.0


CONFIG = Config()


def test_an_attribute_of_a_user_object_is_refused():
    @asc.jit
    def fill_object(z: asc.GlobalAddress, n: int):
        z_gm = asc.GlobalTensor()
        z_gm.set_global_buffer(z, n)
        t = asc.LocalTensor(z.dtype, asc.TPosition.VECOUT, 0, n)
        asc.duplicate(t, CONFIG.value, n)

    with pytest.raises(asc.CodegenError, match=r"reads 'CONFIG.value' at compile time, an attribute of a Config"):
        launch(fill_object)


class Limits:  # a class's attributes are keyed like a module's
    VALUE = 1.5


@asc.jit
def fill_class(z: asc.GlobalAddress, n: int):
    z_gm = asc.GlobalTensor()
    z_gm.set_global_buffer(z, n)
    t = asc.LocalTensor(z.dtype, asc.TPosition.VECOUT, 0, n)
    asc.duplicate(t, Limits.VALUE, n)
    asc.set_flag(asc.HardEvent.V_MTE3, 0)
    asc.wait_flag(asc.HardEvent.V_MTE3, 0)
    asc.data_copy(z_gm, t, n)


def test_a_class_attribute_rebound_recompiles():
    assert (launch(fill_class) == 1.5).all()
    assert (launch(fill_class) == 1.5).all()
    Limits.VALUE = 2.5
    try:
        assert (launch(fill_class) == 2.5).all()
        assert (launch(fill_class) == 2.5).all()
    finally:
        Limits.VALUE = 1.5
    assert (launch(fill_class) == 1.5).all()


@asc.jit
def checked_copy(x: asc.GlobalAddress, z: asc.GlobalAddress):
    # pytest rewrites this assert into calls of its own helpers (this module is a test module): library code,
    # installed with the interpreter, which the compile-time read checks must not refuse
    assert x.dtype == z.dtype, "type not equal"
    x_gm, z_gm = asc.GlobalTensor(), asc.GlobalTensor()
    x_gm.set_global_buffer(x, 64)
    z_gm.set_global_buffer(z, 64)
    t = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 64)
    asc.data_copy(t, x_gm, 64)
    asc.set_flag(asc.HardEvent.MTE2_MTE3, 0)
    asc.wait_flag(asc.HardEvent.MTE2_MTE3, 0)
    asc.data_copy(z_gm, t, 64)


def test_an_assert_rewritten_by_pytest_compiles():
    from asc.codegen.source import library_module

    assert library_module("_pytest.assertion.rewrite") and not library_module(__name__)
    x, z = np.arange(64, dtype=np.float32), np.zeros(64, np.float32)
    checked_copy[1](x, z)
    np.testing.assert_array_equal(z, x)
