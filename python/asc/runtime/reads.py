"""What a kernel depends on besides its arguments, read from code objects
(no source parsing): the names its code looks up in its closure and module,
and transitively what the @asc.jit device functions and plain helper
functions it names read, module and class attributes (``config.TILE``,
``mod.f``) included, and the code of every such function.

One walk serves the three caches: the in-memory specialisation key and the
launch fast path's key read the current values of what it finds (plain
constants and tuples of them by typed value, functions and classes by
identity); the disk cache keys on everything it finds, code included.

What cannot be keyed soundly is refused when a kernel reads it at compile time
(``refusal``): mutable containers (list, dict, set, bytearray) and instances of
user classes can change without being rebound, so no key would see it."""

from __future__ import annotations

import dis
import types
from enum import Enum
from typing import Any, Iterator, NamedTuple, Optional

from ..codegen.source import LiveCells, library_module, refusal
from ..errors import CodegenError

# Values whose repr says all there is to them: they go into keys by value.
KEY_CONSTANTS = (int, float, bool, str, bytes, type(None), Enum)
_ABSENT = object()
_CONTAINERS = (tuple, frozenset)


def plain_constant(value: Any) -> bool:
    """A constant whose repr says all there is to it: KEY_CONSTANTS, and tuples and frozensets of them."""
    if isinstance(value, _CONTAINERS):
        return all(plain_constant(v) for v in value)
    return value is not _ABSENT and isinstance(value, KEY_CONSTANTS)


def typed_key(value: Any) -> Any:
    """`value` as a key that tells apart what == does not: 1, 1.0 and True; 0.0 and -0.0; and that is
    equal to itself for NaN (float('nan') != float('nan') would make a new cache entry per launch)."""
    t = type(value)
    if t is float:
        return (t, value.hex())
    if t is tuple:
        return (t, tuple(typed_key(v) for v in value))
    if t is frozenset:
        return (t, frozenset(typed_key(v) for v in value))
    if t is list:  # a ConstExpr's list (a shape) by its current items: a list changed since a launch misses
        return (t, tuple(typed_key(v) for v in value))
    return (t, value)


# the types typed_key does more than pair with their type
TYPED = frozenset((float, tuple, frozenset, list))


def plain_value(value: Any) -> bool:
    """plain_constant, lists of them too: a ConstExpr argument's value, given afresh at each launch (a list
    read from a module or closure is refused instead, see the module's docstring)."""
    if isinstance(value, (list, tuple, frozenset)):
        return all(plain_value(v) for v in value)
    return plain_constant(value)


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


def closure_values(fn: types.FunctionType) -> LiveCells:
    """A function's closure, by name: a live view of its cells (a `nonlocal` rebinding is seen)."""
    return LiveCells(fn)


class Read(NamedTuple):
    """One thing a function reads: `name` found in `scope` (a closure, module globals or a module's or
    class's namespace) with `value`; or, with scope None, the start of a function whose `code` follows."""

    scope: Optional[Any]
    name: str
    value: Any
    code: Optional[types.CodeType] = None
    helper: bool = False  # a plain function (run as Python at compile time), not a kernel or device function


def _user(value: Any) -> bool:
    """A function, class or module of the user's (not library code), whose code and namespace are followed."""
    if isinstance(value, types.ModuleType):
        return not _library(value.__name__)
    if isinstance(value, (types.FunctionType, type)):
        return not _library(value.__module__)
    return False


def reads(fn: types.FunctionType, closure: Any, seen: set, helper: bool = False) -> Iterator[Read]:
    """Everything `fn` reads (see the module docstring), each function and namespace once (`seen` holds
    ids)."""
    from .jit import JITFunction

    code = fn.__code__
    if id(code) in seen:
        return
    seen.add(id(code))
    yield Read(None, fn.__qualname__, fn, code, helper)
    globals_ = fn.__globals__
    names = sorted(code_names(code))
    for name in names:
        if name in closure:
            scope = closure
        elif name in globals_:
            scope = globals_
        else:
            continue  # a builtin, an attribute or a local
        yield from _follow(scope, name, scope[name], names, seen, JITFunction)


def _follow(scope: Any, name: str, value: Any, names: list, seen: set, jit_function: type) -> Iterator[Read]:
    yield Read(scope, name, value)
    if isinstance(value, jit_function):
        yield from reads(value.fn, value.closure(), seen)
    elif isinstance(value, types.FunctionType) and _user(value):
        yield from reads(value, closure_values(value), seen, helper=True)
    elif isinstance(value, (types.ModuleType, type)) and _user(value):
        namespace = vars(value)  # module.NAME, Class.NAME: the names the code uses that it holds
        if id(namespace) in seen:
            return
        seen.add(id(namespace))
        for attr in names:
            if attr in namespace:
                yield from _follow(namespace, attr, namespace[attr], names, seen, jit_function)


def _library(module: Optional[str]) -> bool:
    """Library code (codegen.source.library_module): what its helpers read does not change between launches."""
    return library_module(module)


def keyed(value: Any) -> bool:
    """Whether the in-memory and fast-path keys hold `value`: plain constants by typed value; the user's
    functions, device functions and classes by identity (rebinding one recompiles); library objects that
    are not modules, functions or classes (dtypes, numpy scalars) by value, other objects by identity (their
    attributes are refused)."""
    from .jit import JITFunction

    if plain_constant(value) or isinstance(value, JITFunction) or _user(value):
        return not isinstance(value, types.ModuleType)
    if isinstance(value, (types.ModuleType, type, types.FunctionType, types.BuiltinFunctionType)):
        return False
    try:  # library objects (dtypes, numpy scalars) by value, any other object by identity
        hash(value)
    except TypeError:  # a mutable container: kernels may not read it (refusal)
        return False
    return True


def constant_slots(fn: types.FunctionType, closure: Any) -> list[tuple[Any, str]]:
    """Where the keyed values `fn` reads live: (namespace, name) pairs, to read their current values.
    Raises CodegenError when a plain helper function reads what cannot be keyed (see `refusal`)."""
    out = []
    for r in reads(fn, closure, set()):
        if r.scope is None:
            if r.helper:
                _check_helper(r.value)
        elif keyed(r.value):
            out.append((r.scope, r.name))
    return out


def _check_helper(fn: Any) -> None:
    """A plain helper runs as Python at compile time: the globals and closure values it loads must be
    keyable (the visitor checks what kernels and device functions read)."""
    from .jit import JITFunction

    if not isinstance(fn, types.FunctionType):
        return
    closure = closure_values(fn)
    instructions = list(dis.get_instructions(fn))
    for index, instruction in enumerate(instructions):
        if instruction.opname == "LOAD_GLOBAL":
            name = instruction.argval
            value = fn.__globals__.get(name, _ABSENT)
        elif instruction.opname == "LOAD_DEREF":
            name = instruction.argval
            value = closure.get(name, _ABSENT)
        else:
            continue
        if value is _ABSENT or isinstance(value, JITFunction):
            continue
        following = instructions[index + 1].opname if index + 1 < len(instructions) else ""
        why = refusal(value, attributes=following in ("LOAD_ATTR", "LOAD_METHOD"))
        if why is not None:
            line = instruction.positions.lineno if instruction.positions else fn.__code__.co_firstlineno
            raise CodegenError(
                f"helper {fn.__qualname__}() reads '{name}' at compile time, {why}; use a tuple (keyed by value) "
                "or pass it as a ConstExpr argument",
                fn.__code__.co_filename,
                line,
            )


def disk_key_part(fn: types.FunctionType, closure: Any) -> Optional[list]:
    """All `fn` reads, as stable text for the disk cache's key: code fingerprints, constants by value,
    functions, classes and modules by name (their code and what they read follow), anything else by its
    repr. None when something is known only by its address (its repr would never match in another
    process)."""
    from .jit import JITFunction

    out: list[Any] = []
    for r in reads(fn, closure, set()):
        if r.scope is None:
            out.append(code_fingerprint(r.code))
        elif plain_constant(r.value):
            out.append((r.name, type(r.value).__name__, r.value))
        elif isinstance(r.value, JITFunction):  # its code follows
            out.append((r.name, r.value.fn.__module__, r.value.fn.__qualname__))
        elif isinstance(r.value, (types.FunctionType, type)):  # its code follows, or it is library code
            out.append((r.name, r.value.__module__, r.value.__qualname__))
        elif isinstance(r.value, types.ModuleType):
            out.append((r.name, r.value.__name__))
        else:
            text = repr(r.value)
            if " at 0x" in text:
                return None
            out.append((r.name, type(r.value).__qualname__, text))
    return out
