"""@asc2.jit: an asc kernel whose synchronisation the compiler inserts."""

from __future__ import annotations

from typing import Any, Callable, Optional

import asc

# Options of the PyAsc2 tile compiler that the Model has no use for: accepted so that its kernels run unchanged.
_IGNORED = ("vf_fusion", "static_alloc", "reuse_ub", "reuse_ub_in_out", "densify_load_store", "verify_sync")


def jit(fn: Optional[Callable[..., Any]] = None, **options: Any) -> Any:
    """``@asc2.jit`` or ``@asc2.jit(option=...)``: asc.jit with insert_sync and double buffering on."""
    for name in _IGNORED:
        options.pop(name, None)
    options.setdefault("insert_sync", True)
    options.setdefault("double_buffer", True)

    def wrap(f: Callable[..., Any]) -> Any:
        return asc.jit(f, **options)

    return wrap(fn) if fn is not None else wrap
