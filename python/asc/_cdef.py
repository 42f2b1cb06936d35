"""The C declarations of asc.h for cffi, and their parsed form kept as a module.

Parsing the header with pycparser takes most of ``import asc``, so the parsed declarations are kept as cffi's
out-of-line ABI-mode module (``_asc_cffi.py``, pure Python, next to the header) with a checksum of the header the
module was made from. ``asc._ffi`` loads it when the checksum matches, and parses the header otherwise.

This file imports nothing of the package, so the wheel's build runs it as a script to ship the parsed form:
``python _cdef.py asc.h _asc_cffi.py`` (python/CMakeLists.txt).
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import sys
import zlib

CDEF_BEGIN = "/* ASC_CDEF_BEGIN */"
CDEF_END = "/* ASC_CDEF_END */"
MODULE_NAME = "_asc_cffi"  # asc._lib._asc_cffi


def cdef_from_header(text: str) -> str:
    """The C declarations between the cdef markers, without preprocessor lines."""
    start, end = text.index(CDEF_BEGIN), text.index(CDEF_END)
    body = text[start + len(CDEF_BEGIN) : end]
    lines = [line for line in body.splitlines() if not line.lstrip().startswith("#")]
    return re.sub(r"\bASC_API\s+", "", "\n".join(lines))


def header_checksum(text: str) -> str:
    """What the kept module records of the header it was parsed from."""
    return f"{zlib.crc32(text.encode()):08x}-{len(text)}"


def parse(text: str):
    """A cffi FFI holding the header's declarations."""
    import cffi

    ffi = cffi.FFI()
    ffi.cdef(cdef_from_header(text))
    return ffi


def write_module(ffi, checksum: str, path: str) -> None:
    """Writes `ffi`'s declarations as the out-of-line module at `path` (atomically), stamped with `checksum`."""
    ffi.set_source(f"asc._lib.{MODULE_NAME}", None)
    tmp = f"{path}.{os.getpid()}.tmp"
    try:
        with contextlib.redirect_stdout(io.StringIO()):  # cffi reports "generating ..."
            ffi.emit_python_code(tmp)
        with open(tmp, "a") as f:
            f.write(f"\nHEADER_CHECKSUM = {checksum!r}\n")
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)


def main(argv: list[str]) -> int:
    if len(argv) != 3:
        print("usage: _cdef.py ASC_H OUTPUT.py  (writes the parsed declarations of ASC_H)", file=sys.stderr)
        return 2
    with open(argv[1]) as f:
        text = f.read()
    write_module(parse(text), header_checksum(text), argv[2])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
