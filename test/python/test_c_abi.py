"""The Python package's view of the C ABI: one header, no drift, errors not crashes."""

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from asc import _ffi
from asc._ffi import ffi, lib

ROOT = Path(__file__).resolve().parents[2]
HEADER = ROOT / "include" / "asc" / "asc.h"


def declared_functions():
    """The functions the header declares (a function pointer typedef, e.g. asc_npu_compile_fn, is none)."""
    cdef = _ffi.cdef_from_header(HEADER.read_text())
    cdef = re.sub(r"typedef\s+\w+\s*\(\s*\*\s*\w+\s*\)\s*\([^;]*\);", "", cdef)
    return set(re.findall(r"\b(asc_\w+)\s*\(", cdef))


def test_package_uses_the_repository_header():
    assert (Path(_ffi.library_path).parent / "asc.h").read_text() == HEADER.read_text()


@pytest.mark.skipif(shutil.which("nm") is None, reason="needs binutils' nm")
def test_exported_symbols_match_the_header():
    out = subprocess.run(["nm", "-D", "--defined-only", str(_ffi.library_path)], capture_output=True, text=True)
    exported = {line.split()[-1] for line in out.stdout.splitlines() if line.split()[1:2] == ["T"]}
    exported = {name for name in exported if name.startswith("asc_")}
    assert exported == declared_functions()


def test_every_declared_function_resolves():
    for name in declared_functions():
        assert getattr(lib, name) is not None


def test_abi_version_matches_header():
    major = int(re.search(r"#define ASC_ABI_VERSION_MAJOR (\d+)", HEADER.read_text())[1])
    minor = int(re.search(r"#define ASC_ABI_VERSION_MINOR (\d+)", HEADER.read_text())[1])
    assert lib.asc_abi_version() == (major << 16) | minor


def test_null_handles_give_a_status_and_a_message():
    assert lib.asc_module_destroy(ffi.NULL) == lib.ASC_ERR_INVALID_ARGUMENT
    assert "module is null" in _ffi.last_error()[0]
    assert lib.asc_launch(ffi.NULL, ffi.NULL, 1, ffi.NULL, 0) == lib.ASC_ERR_INVALID_ARGUMENT
    assert "kernel is null" in _ffi.last_error()[0]
    out = ffi.new("asc_builder_t**")
    assert lib.asc_build_kernel(ffi.NULL, b"k", 1, ffi.NULL, 0, out) == lib.ASC_ERR_INVALID_ARGUMENT


def test_unknown_op_through_the_abi():
    module = ffi.new("asc_module_t**")
    assert lib.asc_module_create(module) == lib.ASC_OK
    builder = ffi.new("asc_builder_t**")
    assert lib.asc_build_kernel(module[0], b"k", 1, ffi.NULL, 0, builder) == lib.ASC_OK
    result = ffi.new("asc_value_t*")
    status = lib.asc_builder_op(builder[0], b"vadd", 4, ffi.NULL, 0, ffi.NULL, 0, ffi.NULL, result)
    assert status == lib.ASC_ERR_UNKNOWN_OP
    assert "unknown op 'vadd'" in _ffi.last_error()[0]
    assert lib.asc_builder_destroy(builder[0]) == lib.ASC_OK
    assert lib.asc_module_destroy(module[0]) == lib.ASC_OK


def test_parsed_declarations_are_kept_and_a_stale_or_corrupt_copy_is_rebuilt(tmp_path):
    """The out-of-line cffi module next to the header is written on first import, used after, and replaced
    when it does not match the header (or cannot be loaded) — never used stale."""
    lib_dir = tmp_path / "lib"
    lib_dir.mkdir()
    real = Path(_ffi.library_path).resolve()
    shutil.copy(real, lib_dir / "libasc.so")
    shutil.copy(Path(_ffi.library_path).parent / "asc.h", lib_dir / "asc.h")
    prebuilt = lib_dir / "_asc_cffi.py"
    probe = "import asc; print(asc._ffi.lib.asc_abi_version())"
    env = {**os.environ, "ASC_LIBRARY": str(lib_dir / "libasc.so")}

    def run():
        out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env, timeout=120)
        assert out.returncode == 0, out.stderr
        return out.stdout.strip()

    version = run()
    assert prebuilt.exists() and "HEADER_CHECKSUM" in prebuilt.read_text()
    for damage in ("HEADER_CHECKSUM = 'stale'\n", "this is not python\n"):
        prebuilt.write_text(prebuilt.read_text().split("HEADER_CHECKSUM")[0] + damage)
        assert run() == version
        assert "HEADER_CHECKSUM = 'stale'" not in prebuilt.read_text() and "not python" not in prebuilt.read_text()
