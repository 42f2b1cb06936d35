"""asc: write Ascend NPU kernels in Python, run them on the Model simulator or an NPU."""

from . import errors
from .errors import CodegenError, KernelError
from .language import *  # noqa: F403
from .language import __all__ as _language_all
from .language import adv
from .runtime.compiler import CodegenOptions, CompileOptions
from .runtime.jit import JITFunction, jit

__version__ = "0.1.0"

__all__ = [
    "CodegenError",
    "CodegenOptions",
    "CompileOptions",
    "JITFunction",
    "KernelError",
    "adv",
    "errors",
    "jit",
    *_language_all,
]
