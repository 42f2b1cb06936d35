"""The generic passes (pyasc: MLIR's, ``asc._C.passes.common``). ``add_<name>(pm)`` appends pass <name>."""

from __future__ import annotations

from typing import Any


def _libasc(pm: Any, name: str) -> None:
    pm.add(name, None)


def add_strip_debug_info(pm: Any) -> None:
    """Drops the source locations from what is emitted: the Ascend C has no ``#line`` directives."""

    def run(module: Any) -> None:
        module.strip_loc = True

    pm.add("strip_debug_info", run)


def add_canonicalizer(pm: Any) -> None:
    """No-op: libasc's builder folds constants as it builds; the emitter writes the IR as it is."""
    _libasc(pm, "canonicalizer")


def add_cse(pm: Any) -> None:
    """No-op: libasc does no common subexpression elimination; bisheng does."""
    _libasc(pm, "cse")


def add_inliner(pm: Any) -> None:
    """No-op: the Python front end inlines device functions into the kernel."""
    _libasc(pm, "inliner")


def add_licm(pm: Any) -> None:
    """No-op: loop-invariant code motion is left to bisheng."""
    _libasc(pm, "licm")


def add_reconcile_unrealized_casts(pm: Any) -> None:
    """No-op: libasc's IR has no unrealized casts (every conversion is an op of the op table)."""
    _libasc(pm, "reconcile_unrealized_casts")


def add_sccp(pm: Any) -> None:
    """No-op: constant propagation is left to bisheng."""
    _libasc(pm, "sccp")


def add_symbol_dce(pm: Any) -> None:
    """No-op: a finished kernel is one function; there are no unused symbols."""
    _libasc(pm, "symbol_dce")
