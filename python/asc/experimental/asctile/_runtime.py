"""asctile's kernels: @asctile.jit is @asc2.jit (the compiler places every tile and inserts every
synchronisation), with asctile's compile options accepted. ASCTILE_INTERPRET=1 makes pyasc-dev run kernels
in a Python interpreter on the host; here it is accepted and changes nothing: the kernels compile for the
Model as always, which runs them on the host, faster than that interpreter, and checks more (bounds,
synchronisation, uninitialised reads)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any, Callable, Optional

import asc2
from asc.language.core.loops import range, static_range  # noqa: A004 - asctile's loops are asc's
from asc.runtime.compiler import CompileOptions as _AscCompileOptions
from asc.runtime.config import set_platform

from ._tensors import DIALECT


def interpreter_requested() -> bool:
    """Whether ASCTILE_INTERPRET asks for pyasc-dev's interpreter ("1", "on" or "true", as pyasc-dev reads
    it). Nothing here depends on it: see the module's docstring."""
    return os.environ.get("ASCTILE_INTERPRET", "").strip().lower() in ("1", "on", "true")


@dataclass(frozen=True)
class CompileOptions(_AscCompileOptions):
    """asc's compile options and asctile's: cv_ratio (vector sub-blocks per cube core: 1 or 2), reuse_alloc,
    static_alloc and vf_fusion (accepted: the compiler's placement already reuses freed buffers, and the
    Model runs the instructions whatever their fusion)."""

    cv_ratio: int = 1
    reuse_alloc: int = 0
    static_alloc: Optional[bool] = None
    vf_fusion: bool = False


_ACCEPTED = ("reuse_alloc", "static_alloc", "vf_fusion", "custom_builtins")


def jit(fn: Optional[Callable[..., Any]] = None, **options: Any) -> Any:
    """``@asctile.jit`` or ``@asctile.jit(option=...)``: @asc2.jit with asctile's options, compiled in the
    asctile tile dialect (its tiles' ``//`` and ``.to`` take asctile's meanings)."""
    cv_ratio = options.pop("cv_ratio", 1)
    if cv_ratio not in (1, 2):
        raise ValueError(f"asctile.jit: cv_ratio is 1 or 2, got {cv_ratio!r}")
    options["cv_ratio"] = cv_ratio  # 2: a MIX_AIC_1_2 kernel, split over a cube core and its two vector cores
    reuse = options.get("reuse_alloc", 0)
    if reuse not in (0, 1, 2):
        raise ValueError(f"asctile.jit: reuse_alloc is 0, 1 or 2, got {reuse!r}")
    for name in _ACCEPTED:
        options.pop(name, None)
    options["tile_dialect"] = DIALECT  # asctile's meaning of // and .to in this kernel only (asc2.dialect)
    return asc2.jit(fn, **options) if fn is not None else asc2.jit(**options)


__all__ = ["CompileOptions", "interpreter_requested", "jit", "range", "set_platform", "static_range"]
