"""Loads libasc.so with cffi in ABI mode; the declarations come from asc.h.

The library is looked up in ``$ASC_LIBRARY`` (a path to libasc.so), then in
``asc/_lib/`` next to this file (where the CMake build copies it).

Parsing the header with pycparser takes most of ``import asc``, so the parsed
declarations are kept as cffi's out-of-line ABI-mode module
(``_asc_cffi.py``, pure Python, next to the header) together with a checksum
of the header (``_cdef.py``): a later import loads that instead, and a header
that changed is parsed again (and the module rewritten, where the directory
is writable). The wheel ships the module, made when it was built.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os

from ._cdef import MODULE_NAME, cdef_from_header, header_checksum, parse, write_module

__all__ = [
    "NO_VALUE",
    "abi_version",
    "cdef_from_header",
    "ffi",
    "last_error",
    "lib",
    "library_path",
    "read_text",
    "status_name",
]

NO_VALUE = 0xFFFFFFFF


def _library_paths() -> tuple[str, str]:
    env = os.environ.get("ASC_LIBRARY")
    lib = env or os.path.join(os.path.dirname(__file__), "_lib", "libasc.so")
    header = os.path.join(os.path.dirname(lib), "asc.h")
    if not os.path.exists(lib) or not os.path.exists(header):
        raise ImportError(
            f"libasc.so or asc.h not found in {os.path.dirname(lib)}. Build the C++ library first "
            "(`make build` at the repository root), or point ASC_LIBRARY at libasc.so."
        )
    return lib, header


def _prebuilt_ffi(path: str, checksum: str):
    """The ffi of the out-of-line module at `path` if it was made from a header with this checksum."""
    try:
        spec = importlib.util.spec_from_file_location(f"asc._lib.{MODULE_NAME}", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module.ffi if getattr(module, "HEADER_CHECKSUM", None) == checksum else None
    except Exception:  # missing, stale or corrupt: parse the header instead
        return None


def _parsed_ffi(header: str, path: str, checksum: str):
    ffi = parse(header)
    with contextlib.suppress(OSError):  # best effort (a read-only install): keep the parse for the next import
        write_module(ffi, checksum, path)
    return ffi


def _load():
    lib_path, header_path = _library_paths()
    with open(header_path) as f:
        header = f.read()
    checksum = header_checksum(header)
    prebuilt = os.path.join(os.path.dirname(header_path), f"{MODULE_NAME}.py")
    ffi = _prebuilt_ffi(prebuilt, checksum) or _parsed_ffi(header, prebuilt, checksum)
    return ffi, ffi.dlopen(lib_path), lib_path


ffi, lib, library_path = _load()

# The C ABI version of the loaded library, "major.minor" (asc_abi_version(); asc.h's ASC_ABI_VERSION_MAJOR/MINOR).
abi_version = "{}.{}".format(*divmod(int(lib.asc_abi_version()), 1 << 16))


def last_error() -> tuple[str, str, int, int]:
    """(message without location prefix, file, line, col) of the last failure on this thread."""
    message = ffi.string(lib.asc_last_error()).decode("utf-8", "replace")
    file_p, line_p, col_p = ffi.new("const char**"), ffi.new("uint32_t*"), ffi.new("uint32_t*")
    lib.asc_last_error_loc(file_p, line_p, col_p)
    file = ffi.string(file_p[0]).decode("utf-8", "replace") if file_p[0] != ffi.NULL else ""
    line, col = int(line_p[0]), int(col_p[0])
    prefix = f"{file}:{line}:{col}: "
    if file and message.startswith(prefix):
        message = message[len(prefix) :]
    return message, file, line, col


def read_text(call, handle) -> str:
    """The text of an `asc_*_print`-style call (handle, buf, cap, len): asks for the length, then reads."""
    size = ffi.new("size_t*")
    call(handle, ffi.NULL, 0, size)
    buf = ffi.new("char[]", size[0] + 1)
    if call(handle, buf, size[0] + 1, size) != lib.ASC_OK:
        raise RuntimeError(last_error()[0])
    return ffi.string(buf).decode("utf-8", "replace")


def status_name(status: int) -> str:
    return ffi.string(lib.asc_status_name(status)).decode()
