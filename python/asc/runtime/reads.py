"""What a kernel depends on besides its arguments, read from code objects
(no source parsing): the names its code looks up in its closure and module,
and transitively what the @asc.jit device functions and plain helper
functions it names read, module attributes (``config.TILE``) included.

One walk serves the three caches: the in-memory specialisation key and the
launch fast path's key read the current values of the plain constants it
finds; the disk cache keys on everything it finds, code included."""

from __future__ import annotations

import types
from enum import Enum
from typing import Any, Iterator, NamedTuple, Optional

# Values whose repr says all there is to them: they go into keys by value.
KEY_CONSTANTS = (int, float, bool, str, bytes, type(None), Enum)
_ABSENT = object()
# Helpers from these packages are library code: what they read does not change between launches.
_LIBRARY_PACKAGES = ("asc", "numpy", "torch")


def plain_constant(value: Any) -> bool:
    return value is not _ABSENT and isinstance(value, KEY_CONSTANTS)


def code_names(code: types.CodeType) -> set:
    """Every name a function (and the functions and comprehensions inside it) may look up globally, or
    read as an attribute."""
    names = set(code.co_names) | set(code.co_freevars)
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            names |= code_names(c)
    return names


def code_fingerprint(code: types.CodeType) -> tuple:
    """A code object's bytecode, names, constants (nested code too) and where its lines are."""
    consts = tuple(code_fingerprint(c) if isinstance(c, types.CodeType) else repr(c) for c in code.co_consts)
    return (code.co_filename, code.co_firstlineno, code.co_code, code.co_names, code.co_varnames, consts,
            code.co_linetable)  # fmt: skip


def closure_values(fn: types.FunctionType) -> dict[str, Any]:
    """The values of a function's closure cells, by name (cells not yet filled are left out)."""
    values = {}
    for name, cell in zip(fn.__code__.co_freevars, fn.__closure__ or ()):
        try:
            values[name] = cell.cell_contents
        except ValueError:
            pass
    return values


class Read(NamedTuple):
    """One thing a function reads: `name` found in `scope` (a closure snapshot, module globals or a module's
    namespace) with `value`; or, with scope None, the start of a function whose `code` follows."""

    scope: Optional[dict]
    name: str
    value: Any
    code: Optional[types.CodeType] = None


def reads(fn: types.FunctionType, closure: dict, seen: set) -> Iterator[Read]:
    """Everything `fn` reads (see the module docstring), each function once (`seen` holds code ids)."""
    from .jit import JITFunction

    code = fn.__code__
    if id(code) in seen:
        return
    seen.add(id(code))
    yield Read(None, fn.__qualname__, fn, code)
    globals_ = fn.__globals__
    names = sorted(code_names(code))
    for name in names:
        if name in closure:
            scope = closure
        elif name in globals_:
            scope = globals_
        else:
            continue  # a builtin, an attribute or a local
        value = scope[name]
        yield Read(scope, name, value)
        if isinstance(value, JITFunction):
            yield from reads(value.fn, value.closure(), seen)
        elif isinstance(value, types.FunctionType) and not _library(value.__module__):
            yield from reads(value, closure_values(value), seen)
        elif isinstance(value, types.ModuleType) and not _library(value.__name__):
            namespace = vars(value)
            for attr in names:  # module.NAME: the names the code uses that the module holds
                if attr in namespace:
                    yield Read(namespace, attr, namespace[attr])


def _library(module: Optional[str]) -> bool:
    return (module or "").split(".")[0] in _LIBRARY_PACKAGES


def constant_slots(fn: types.FunctionType, closure: dict) -> list[tuple[dict, str]]:
    """Where the plain constants `fn` reads live: (namespace, name) pairs, to read their current values."""
    return [(r.scope, r.name) for r in reads(fn, closure, set()) if r.scope is not None and plain_constant(r.value)]


def disk_key_part(fn: types.FunctionType, closure: dict) -> Optional[list]:
    """All `fn` reads, as stable text for the disk cache's key: code fingerprints, constants by value,
    functions and modules by name, anything else by its repr. None when something is known only by its
    address (its repr would never match in another process)."""
    from .jit import JITFunction

    out: list[Any] = []
    for r in reads(fn, closure, set()):
        if r.scope is None:
            out.append(code_fingerprint(r.code))
        elif plain_constant(r.value):
            out.append((r.name, type(r.value).__name__, r.value))
        elif isinstance(r.value, JITFunction):  # its code follows
            out.append((r.name, r.value.fn.__module__, r.value.fn.__qualname__))
        elif isinstance(r.value, types.FunctionType):  # its code follows, or it is library code
            out.append((r.name, r.value.__module__, r.value.__qualname__))
        elif isinstance(r.value, types.ModuleType):
            out.append((r.name, r.value.__name__))
        else:
            text = repr(r.value)
            if " at 0x" in text:
                return None
            out.append((r.name, type(r.value).__qualname__, text))
    return out
