"""The distribution's metadata (issue 26): one name and version across the wheel's pyproject.toml, the
development install's python/pyproject.toml, asc.__version__ and CMake's project(); the C ABI version that
asc.__abi_version__ reports; the parsed declarations the wheel ships (asc/_cdef.py run as a script).
scripts/wheel_check.sh builds, installs and runs the wheel itself."""

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import asc
from asc import _cdef, _ffi

tomllib = pytest.importorskip("tomllib")  # Python 3.11+

ROOT = Path(__file__).resolve().parents[2]
WHEEL = tomllib.loads((ROOT / "pyproject.toml").read_text())
DEVELOP = tomllib.loads((ROOT / "python" / "pyproject.toml").read_text())
HEADER = (ROOT / "include" / "asc" / "asc.h").read_text()


def test_one_name_and_one_version():
    assert WHEEL["project"]["name"] == DEVELOP["project"]["name"] == "asc-model"
    assert WHEEL["project"]["dynamic"] == DEVELOP["project"]["dynamic"] == ["version"]
    assert WHEEL["tool"]["scikit-build"]["metadata"]["version"]["input"] == "python/asc/__init__.py"
    assert DEVELOP["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "asc.__version__"}
    cmake = re.search(r"project\(asc VERSION (\S+)", (ROOT / "CMakeLists.txt").read_text())[1]
    assert re.fullmatch(r"\d+\.\d+\.\d+", asc.__version__) and cmake == asc.__version__


def test_the_two_installs_require_the_same():
    for key in ("dependencies", "optional-dependencies", "requires-python", "description", "urls"):
        assert WHEEL["project"][key] == DEVELOP["project"][key], key


def test_the_wheel_carries_the_three_packages_typed():
    packages = WHEEL["tool"]["scikit-build"]["wheel"]["packages"]
    assert packages == ["python/asc", "python/asc2", "python/pyasc"]
    for package in packages:
        assert (ROOT / package / "__init__.py").exists() and (ROOT / package / "py.typed").exists()
    assert "Typing :: Typed" in WHEEL["project"]["classifiers"]
    assert WHEEL["project"]["license"] == "Apache-2.0" and (ROOT / "LICENSE").exists()


def test_the_urls_name_the_apis_followed():
    urls = WHEEL["project"]["urls"]
    assert set(urls.values()) == {"https://github.com/hicann/pyasc", "https://github.com/compiler-team-ru/pyasc"}


def test_abi_version_is_the_loaded_library_s_and_the_header_s():
    major = int(re.search(r"#define ASC_ABI_VERSION_MAJOR (\d+)", HEADER)[1])
    minor = int(re.search(r"#define ASC_ABI_VERSION_MINOR (\d+)", HEADER)[1])
    assert asc.__abi_version__ == f"{major}.{minor}"
    assert _ffi.lib.asc_abi_version() == (major << 16) | minor


def test_the_shipped_declarations_are_accepted_and_a_changed_header_is_not(tmp_path):
    """What the wheel's build writes (python/CMakeLists.txt runs _cdef.py as a script, outside the package) is what
    _ffi loads instead of parsing the header; stamped for one header, it is refused for another."""
    header = tmp_path / "asc.h"
    header.write_text(HEADER)
    module = tmp_path / "_asc_cffi.py"
    out = subprocess.run([sys.executable, _cdef.__file__, str(header), str(module)], capture_output=True, text=True,
                         timeout=120, cwd=tmp_path)  # fmt: skip
    assert out.returncode == 0, out.stderr
    shipped = _ffi._prebuilt_ffi(str(module), _cdef.header_checksum(HEADER))
    assert shipped is not None
    assert shipped.sizeof("asc_platform_info_t") == _ffi.ffi.sizeof("asc_platform_info_t") > 0
    assert sorted(shipped.list_types()[0]) == sorted(_ffi.ffi.list_types()[0])
    assert _ffi._prebuilt_ffi(str(module), _cdef.header_checksum(HEADER + "\n")) is None


def test_the_declarations_script_says_how_to_call_it():
    out = subprocess.run([sys.executable, _cdef.__file__], capture_output=True, text=True, timeout=60)
    assert out.returncode == 2 and "usage: _cdef.py ASC_H OUTPUT.py" in out.stderr


@pytest.mark.skipif(shutil.which("readelf") is None, reason="needs binutils' readelf")
def test_the_library_needs_no_fmt_or_spdlog():
    """fmt and spdlog are header-only (cmake/deps.cmake), so a wheel's libasc.so carries no dependency on them."""
    out = subprocess.run(["readelf", "-d", str(_ffi.library_path)], capture_output=True, text=True, timeout=60)
    needed = re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", out.stdout)
    assert "libc.so.6" in needed
    assert not [n for n in needed if n.startswith(("libfmt", "libspdlog"))], needed
