"""asc: write Ascend NPU kernels in Python, run them on the Model simulator or an NPU."""

from . import _ffi, errors
from .errors import CodegenError, KernelError
from .language import *  # noqa: F403
from .language import __all__ as _language_all
from .language import basic, core, fwk  # pyasc's asc.basic, asc.core, asc.fwk
from .runtime.compiler import CodegenOptions, CompileOptions
from .runtime.jit import JITFunction, jit
from .runtime.launcher import LaunchOptions

# The distribution's version (asc-model; pyproject.toml reads it from here). __abi_version__ is the C ABI's of the
# loaded libasc.so, "major.minor": a wheel's library is its own, a development tree's the one `make build` made.
__version__ = "0.1.0"
__abi_version__ = _ffi.abi_version


def __getattr__(name: str):
    """asc.adv (Matmul and its device functions) loads on first use: most kernels never need it."""
    if name == "adv":
        from .language import adv

        return adv
    if name == "SoftmaxMode":  # pyasc's newer release exports it at the top level too
        from .language.adv.types import SoftmaxMode

        return SoftmaxMode
    raise AttributeError(f"module 'asc' has no attribute {name!r}")


__all__ = [
    "CodegenError",
    "CodegenOptions",
    "CompileOptions",
    "JITFunction",
    "KernelError",
    "LaunchOptions",
    "basic",
    "core",
    "fwk",
    "adv",  # noqa: F405 - loaded on first use (__getattr__)
    "SoftmaxMode",  # noqa: F405 - from asc.adv, loaded on first use
    "errors",
    "jit",
    *_language_all,
]
