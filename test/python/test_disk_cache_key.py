"""What the persistent compile cache's key covers: a kernel compiled again
with nothing changed is served from disk; a change to anything the kernel
depends on — its code or a device function's, a module constant, a ConstExpr
value, an argument dtype, a compile option, the platform — is compiled anew
(and the result is right). In one process: the in-memory caches are emptied
between compiles, so only the disk cache can serve."""

import importlib.util
import os
import sys
import textwrap

import numpy as np
import pytest

import asc.lib.runtime as rt
from asc.runtime import disk_cache

MODULE = textwrap.dedent(
    """
    import asc

    SCALE = {scale}

    @asc.jit
    def bump(t: asc.LocalTensor, n: int):
        asc.adds(t, t, {bump}, n)

    @asc.jit{options}
    def kernel(x: asc.GlobalAddress, y: asc.GlobalAddress, n: int, REPEAT: asc.ConstExpr[int]):
        x_gm, y_gm = asc.GlobalTensor(), asc.GlobalTensor()
        x_gm.set_global_buffer(x, n)
        y_gm.set_global_buffer(y, n)
        t = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, n)
        asc.data_copy(t, x_gm, n)
        asc.set_flag(asc.HardEvent.MTE2_V, 0)
        asc.wait_flag(asc.HardEvent.MTE2_V, 0)
        for _ in range(REPEAT):
            asc.muls(t, t, SCALE, n)
        bump(t, n)
        asc.set_flag(asc.HardEvent.V_MTE3, 0)
        asc.wait_flag(asc.HardEvent.V_MTE3, 0)
        asc.data_copy(y_gm, t, n)
    """
)


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("PYASC_CACHE_DIR", str(tmp_path / "cache"))
    yield
    rt.set_soc_version("Ascend910B1")


def load(tmp_path, name, scale=2, bump=1, options=""):
    path = tmp_path / f"{name}.py"
    path.write_text(MODULE.format(scale=scale, bump=bump, options=options))
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def launch_afresh(kernel, *args):
    """Launches `kernel` on one block with its in-memory caches emptied, so that only the disk cache can
    spare a compile; returns (disk hits, disk misses) of that launch."""
    kernel._cache.clear()
    kernel._plans.clear()
    kernel._launch_key = None
    kernel._launchers.clear()
    before = dict(disk_cache.stats)
    kernel[1, rt.current_stream()](*args)
    return disk_cache.stats["hits"] - before["hits"], disk_cache.stats["misses"] - before["misses"]


def run(module, dtype=np.float32, repeat=1):
    """Compiles `module.kernel` afresh in this process, runs it, checks the result; returns (disk hits, disk
    misses) of that compile."""
    x = np.arange(64).astype(dtype)
    y = np.zeros_like(x)
    counts = launch_afresh(module.kernel, x, y, 64, repeat)
    expected = x * dtype(module.SCALE) ** repeat + dtype(module.BUMP_EXPECTED)
    np.testing.assert_allclose(y, expected, rtol=1e-3)
    return counts


def variant(tmp_path, name, **kwargs):
    module = load(tmp_path, name, **kwargs)
    module.BUMP_EXPECTED = kwargs.get("bump", 1)
    return module


def test_nothing_changed_is_a_hit(cache, tmp_path):
    m = variant(tmp_path, "k_same")
    assert run(m) == (0, 1)
    assert run(m) == (1, 0)


@pytest.mark.parametrize(
    "change",
    ["constant", "device_function", "constexpr", "dtype", "option", "platform"],
)
def test_a_change_is_compiled_anew(cache, tmp_path, change):
    base = variant(tmp_path, f"k_base_{change}")
    assert run(base) == (0, 1)
    if change == "constant":
        assert run(variant(tmp_path, f"k_base_{change}", scale=3)) == (0, 1)
    elif change == "device_function":
        assert run(variant(tmp_path, f"k_base_{change}", bump=5)) == (0, 1)
    elif change == "constexpr":
        assert run(base, repeat=2) == (0, 1)
    elif change == "dtype":
        assert run(base, dtype=np.float16) == (0, 1)
    elif change == "option":
        assert run(variant(tmp_path, f"k_base_{change}", options="(insert_sync=True)")) == (0, 1)
    elif change == "platform":
        rt.set_soc_version("Ascend910B2")
        assert run(base) == (0, 1)
    if change != "platform":
        assert run(base) == (1, 0)  # the original is still cached


HELPERS = textwrap.dedent(
    """
    import asc
    import {config} as config

    OFFSET = {offset}

    def offset():  # a plain helper the kernel calls while compiling: what it reads counts too
        return OFFSET

    class Opaque:  # known only by its address
        pass

    OPAQUE = Opaque()

    @asc.jit
    def kernel(x: asc.GlobalAddress, y: asc.GlobalAddress, n: int):
        x_gm, y_gm = asc.GlobalTensor(), asc.GlobalTensor()
        x_gm.set_global_buffer(x, n)
        y_gm.set_global_buffer(y, n)
        t = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, n)
        asc.data_copy(t, x_gm, n)
        asc.set_flag(asc.HardEvent.MTE2_V, 0)
        asc.wait_flag(asc.HardEvent.MTE2_V, 0)
        asc.adds(t, t, offset() + config.EXTRA, n)
        asc.set_flag(asc.HardEvent.V_MTE3, 0)
        asc.wait_flag(asc.HardEvent.V_MTE3, 0)
        asc.data_copy(y_gm, t, n)

    @asc.jit
    def kernel_opaque(x: asc.GlobalAddress, y: asc.GlobalAddress, n: int):
        kernel(x, y, n)  # the same work, as a device function
        if OPAQUE is None:
            asc.printf("never")
    """
)


def load_helpers(tmp_path, name, offset, extra):
    config = f"{name}_config"
    (tmp_path / f"{config}.py").write_text(f"EXTRA = {extra}\n")
    (tmp_path / f"{name}.py").write_text(HELPERS.format(config=config, offset=offset))
    sys.path.insert(0, str(tmp_path))
    try:
        for module in (config, name):
            sys.modules.pop(module, None)
        return importlib.import_module(name)
    finally:
        sys.path.remove(str(tmp_path))


def run_helpers(module, opaque=False):
    x = np.arange(64, dtype=np.float32)
    y = np.zeros_like(x)
    counts = launch_afresh(module.kernel_opaque if opaque else module.kernel, x, y, 64)
    np.testing.assert_array_equal(y, x + module.OFFSET + module.config.EXTRA)
    return counts


def test_what_helpers_and_other_modules_hold_is_in_the_key(cache, tmp_path):
    assert run_helpers(load_helpers(tmp_path, "k_helpers", 1, 10)) == (0, 1)
    assert run_helpers(load_helpers(tmp_path, "k_helpers", 1, 10)) == (1, 0)
    assert run_helpers(load_helpers(tmp_path, "k_helpers", 2, 10)) == (0, 1)  # the helper's module constant
    assert run_helpers(load_helpers(tmp_path, "k_helpers", 2, 30)) == (0, 1)  # config.EXTRA


def test_a_kernel_reading_an_object_known_by_its_address_is_not_cached_on_disk(cache, tmp_path):
    module = load_helpers(tmp_path, "k_opaque", 1, 10)
    stored = disk_cache.stats["stored"]
    assert run_helpers(module, opaque=True) == (0, 0)  # neither looked up nor stored
    assert disk_cache.stats["stored"] == stored


def test_the_tile_api_modules_are_part_of_the_library_identity():
    """asc2 generates kernel code too: editing its modules must invalidate cached kernels (it registers
    itself with register_code_package on import)."""
    import asc2  # noqa: F401

    identity = disk_cache.library_identity().decode()
    for module in ("asc2/tile.py", "asc2/memory.py", "asc2/ops.py", "asc/language/core/tensor.py"):
        assert f"{module}:" in identity.replace("\\", "/"), module


def test_editing_a_registered_code_package_compiles_anew(cache, tmp_path, monkeypatch):
    """A package registered with asc.runtime.register_code_package is part of the key: a kernel cached
    before one of its modules was edited is compiled again."""
    from asc.runtime import register_code_package

    package = tmp_path / "kernel_library"
    package.mkdir()
    (package / "__init__.py").write_text("SCALE = 1\n")
    monkeypatch.setattr(disk_cache, "_code_packages", list(disk_cache._code_packages))
    monkeypatch.setattr(disk_cache, "_library_identity", None)
    register_code_package(str(package))
    register_code_package(package)  # again: nothing changes
    assert disk_cache.code_packages().count(str(package)) == 1
    base = variant(tmp_path, "k_registered")
    assert run(base) == (0, 1)
    assert run(base) == (1, 0)
    (package / "__init__.py").write_text("SCALE = 10  # edited\n")
    monkeypatch.setattr(disk_cache, "_library_identity", None)  # as the next process computes it
    assert run(base) == (0, 1)
    assert run(base) == (1, 0)
    with pytest.raises(ValueError, match="not a directory"):
        register_code_package(str(package / "__init__.py"))


def test_a_module_added_to_a_package_after_its_listing_was_remembered_is_in_the_key(tmp_path):
    """The module list of a package is remembered in the cache directory; a module added since (a new file
    in a development tree, then edited) must still be listed, or edits to it would leave kernels stale."""
    package, cache_dir = tmp_path / "pkg", tmp_path / "cache"
    (package / "sub").mkdir(parents=True)
    cache_dir.mkdir()
    (package / "a.py").write_text("A = 1\n")
    (package / "sub" / "b.py").write_text("B = 1\n")
    assert disk_cache._package_modules(str(package), str(cache_dir)) == ["a.py", "sub/b.py"]
    assert disk_cache._package_modules(str(package), str(cache_dir)) == ["a.py", "sub/b.py"]  # remembered
    (package / "sub" / "c.py").write_text("C = 1\n")
    stat = os.stat(package / "sub")
    os.utime(package / "sub", ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000))  # a coarse clock
    assert disk_cache._package_modules(str(package), str(cache_dir)) == ["a.py", "sub/b.py", "sub/c.py"]
