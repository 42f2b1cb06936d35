"""Exceptions raised to users. Every one names the kernel's file and line."""

from __future__ import annotations

import linecache
from typing import Optional


def source_excerpt(file: str, line: int, col: int = 0, context: int = 2) -> str:
    """The lines around file:line with a caret under the column, or '' if unreadable."""
    if not file or line <= 0:
        return ""
    out = []
    for n in range(max(1, line - context), line + 1):
        text = linecache.getline(file, n).rstrip("\n")
        if not text and n != line:
            continue
        out.append(f"  {n:>4} | {text}")
    if not out or not linecache.getline(file, line):
        return ""
    if col > 0:
        out.append("       | " + " " * (col - 1) + "^")
    return "\n".join(out)


class CodegenError(Exception):
    """A kernel could not be compiled: unsupported syntax, wrong types, a verifier rule."""

    def __init__(self, message: str, file: str = "", line: int = 0, col: int = 0):
        self.message, self.file, self.line, self.col = message, file, line, col
        super().__init__(self._format())

    def _format(self) -> str:
        if not self.file:
            return self.message
        excerpt = source_excerpt(self.file, self.line, self.col)
        where = f"at {self.file}:{self.line}:{self.col}:"
        return f"{where}\n{excerpt}\n{self.message}" if excerpt else f"{where} {self.message}"


class UnsupportedSyntaxError(CodegenError):
    """Python syntax that kernels cannot use."""


class KernelError(RuntimeError):
    """A kernel failed while running on a device."""

    status_name = "ASC_ERR_RUNTIME"

    def __init__(self, message: str, file: str = "", line: int = 0, col: int = 0, kernel: Optional[str] = None):
        self.message, self.file, self.line, self.col, self.kernel = message, file, line, col, kernel
        text = f"{kernel}: {message}" if kernel else message
        if file:
            text += f"\n  at {file}:{line}:{col}"
            excerpt = source_excerpt(file, line, col, context=0)
            if excerpt:
                text += "\n" + excerpt
        super().__init__(text)


class DeadlockError(KernelError):
    """A wait_flag that no set_flag can satisfy."""


class OutOfBoundsError(KernelError, IndexError):
    """An access outside a GM buffer, a tensor or the local memory."""


class MisalignedError(KernelError):
    """An address or length that breaks the hardware's alignment rules."""


class BackendUnavailableError(KernelError):
    """The requested backend cannot be used on this machine (e.g. NPU without CANN)."""


class RaceError(KernelError):
    """racecheck: two pipes touch the same local memory without a flag or barrier between them."""


class UninitializedReadError(KernelError):
    """initcheck: a read of local memory nothing wrote in this launch."""


class GmWriteConflictError(KernelError):
    """memcheck: two blocks wrote the same GM bytes."""


class KernelWarning(UserWarning):
    """Something a launch did that the hardware tolerates but is almost certainly a mistake."""


class SyncWarning(KernelWarning):
    """synccheck: a set_flag never waited for."""


class AlignmentWarning(KernelWarning):
    """data_copy of a length that is not whole 32-byte blocks: like the NPU, the Model drops the tail."""


class MemcheckWarning(KernelWarning):
    """memcheck: the board runs it, the Model warns (strict mode: an error). A GM access into the padding the
    board's allocator adds past an argument's bytes, a local tensor used past its end inside its memory, or
    blocks writing the same bytes to the same GM range."""


class InitcheckWarning(KernelWarning):
    """initcheck: an instruction read on-chip bytes that hold no defined value (nothing wrote them). The board
    computes garbage from them; the Model marks what it computes undefined, and it is an UninitializedReadError
    when that reaches GM or the scalar unit (strict mode: an error at the read)."""


class PositionWarning(UserWarning):
    """At compile time: an instruction given a LocalTensor labelled for another memory than the one it addresses
    (mmad's dst at VECOUT, say). The board uses the instruction's memory at the tensor's address whatever the
    label; so does the Model, and it says so."""


class PlatformWarning(UserWarning):
    """A kernel calls an instruction the target platform does not have (the region-proposal sorts on Atlas
    A2/A3): it compiles, as Ascend C does there with CANN's "unsupported API on current device" warning, and the
    launch fails when it reaches the instruction."""


def warning_category(text: str) -> type:
    """The warning class of a launch warning's text, by its prefix."""
    if text.startswith("alignment:"):
        return AlignmentWarning
    if text.startswith("memcheck:"):
        return MemcheckWarning
    if text.startswith("initcheck:"):
        return InitcheckWarning
    return SyncWarning


class LaunchArgumentError(TypeError):
    """Launch arguments that do not fit the kernel's parameters."""


_BY_STATUS = {
    "ASC_ERR_DEADLOCK": DeadlockError,
    "ASC_ERR_OUT_OF_BOUNDS": OutOfBoundsError,
    "ASC_ERR_MISALIGNED": MisalignedError,
    "ASC_ERR_BACKEND_UNAVAILABLE": BackendUnavailableError,
    "ASC_ERR_RACE": RaceError,
    "ASC_ERR_UNINITIALIZED": UninitializedReadError,
    "ASC_ERR_GM_CONFLICT": GmWriteConflictError,
}


def kernel_error_class(status_name: str) -> type[KernelError]:
    return _BY_STATUS.get(status_name, KernelError)
