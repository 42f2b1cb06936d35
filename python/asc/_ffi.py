"""Loads libasc.so with cffi in ABI mode; the declarations come from asc.h.

The library is looked up in ``$ASC_LIBRARY`` (a path to libasc.so), then in
``asc/_lib/`` next to this file (where the CMake build copies it).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import cffi

_CDEF_BEGIN = "/* ASC_CDEF_BEGIN */"
_CDEF_END = "/* ASC_CDEF_END */"

NO_VALUE = 0xFFFFFFFF


def _library_paths() -> tuple[Path, Path]:
    env = os.environ.get("ASC_LIBRARY")
    lib = Path(env) if env else Path(__file__).parent / "_lib" / "libasc.so"
    header = lib.parent / "asc.h"
    if not lib.exists() or not header.exists():
        raise ImportError(
            f"libasc.so or asc.h not found in {lib.parent}. Build the C++ library first "
            "(`make build` at the repository root), or point ASC_LIBRARY at libasc.so."
        )
    return lib, header


def cdef_from_header(text: str) -> str:
    """The C declarations between the cdef markers, without preprocessor lines."""
    start, end = text.index(_CDEF_BEGIN), text.index(_CDEF_END)
    body = text[start + len(_CDEF_BEGIN) : end]
    lines = [line for line in body.splitlines() if not line.lstrip().startswith("#")]
    return re.sub(r"\bASC_API\s+", "", "\n".join(lines))


def _load():
    lib_path, header_path = _library_paths()
    ffi = cffi.FFI()
    ffi.cdef(cdef_from_header(header_path.read_text()))
    return ffi, ffi.dlopen(str(lib_path)), lib_path


ffi, lib, library_path = _load()


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
