"""Tile APIs built over asc2 whose operators mean something else than asc2's (asc.experimental.asctile, whose
``//`` is its true division where asc2's floors) give their kernels their meanings without changing asc2's
for asc2 kernels: such an API registers its meanings under a dialect name, its jit compiles with
``tile_dialect=<name>`` (asc.runtime.compiler.CodegenOptions; the kernel caches key on it), and a Tile
operator that has a registered meaning looks up the dialect of the kernel being compiled. Importing the API
changes nothing for other kernels."""

from __future__ import annotations

from typing import Any, Callable

from asc.codegen.context import current_builder
from asc.language.basic.utils import builtin

_MEANINGS: dict[str, dict[str, Callable[..., Any]]] = {}


def register(dialect: str, meanings: dict[str, Callable[..., Any]]) -> None:
    """`meanings` (Tile method name -> function called with the tile first) apply in kernels compiled with
    ``tile_dialect=dialect``."""
    if not dialect:
        raise ValueError("a tile dialect has a non-empty name ('' is asc2's own)")
    _MEANINGS.setdefault(dialect, {}).update(meanings)


def meaning(name: str, default: Callable[..., Any]) -> Callable[..., Any]:
    """What Tile method `name` means in the kernel being compiled: its dialect's, else `default` (asc2's)."""
    dialect = getattr(current_builder(), "tile_dialect", "")
    return _MEANINGS.get(dialect, {}).get(name, default) if dialect else default


def method(name: str, default: Callable[..., Any]) -> Callable[..., Any]:
    """A Tile method that is `default` unless the kernel's dialect gives `name` another meaning."""

    def dispatch(self: Any, *args: Any, **kwargs: Any) -> Any:
        return meaning(name, default)(self, *args, **kwargs)

    dispatch.__name__ = name
    return builtin(dispatch)


__all__ = ["meaning", "method", "register"]
