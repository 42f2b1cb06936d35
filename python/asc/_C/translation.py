"""The module's Ascend C (pyasc: ``asc._C.translation``)."""

from __future__ import annotations

from .._ffi import ffi, last_error, lib
from .ir import KernelModule


class TranslationError(RuntimeError):
    """The emitter could not write the kernel (an op it cannot spell: ``status`` is ASC_ERR_UNSUPPORTED)."""

    def __init__(self, message: str, status: int):
        super().__init__(message)
        self.status = status


def ir_to_ascendc(module: KernelModule) -> str:
    """The kernel as one Ascend C file for bisheng, from libasc's emitter (``asc_kernel_source``). After
    ``passes.common.add_strip_debug_info`` ran, without the ``#line`` directives that point at Python lines."""
    size = ffi.new("size_t*")
    lib.asc_kernel_source(module.handle, ffi.NULL, 0, size)
    buf = ffi.new("char[]", size[0] + 1)
    status = lib.asc_kernel_source(module.handle, buf, size[0] + 1, size)
    if status != lib.ASC_OK:
        raise TranslationError(last_error()[0], status)
    source = ffi.string(buf).decode("utf-8", "replace")
    if module.strip_loc:
        source = "".join(line for line in source.splitlines(keepends=True) if not line.startswith("#line "))
    return source
