"""The parsed source of a Python function, with its file, line offsets and globals."""

from __future__ import annotations

import ast
import inspect
import linecache
import os
import sys
import textwrap
import types
from enum import Enum
from typing import Any, Callable, Iterator, Mapping, Optional

from ..errors import CodegenError

_ABSENT = object()
_MUTABLE = (list, dict, set, bytearray)
_IMMUTABLE = (int, float, complex, bool, str, bytes, type(None), Enum, range, slice, type(Ellipsis))
_NAMESPACES = (types.ModuleType, type, types.FunctionType, types.BuiltinFunctionType, types.MethodType)
# Library code: what its modules hold does not change between launches. asc.runtime.register_code_package
# adds the packages it registers (asc2).
LIBRARY_PACKAGES = ["asc", "numpy", "torch"]
_TRUSTED_PACKAGES = ("builtins", "typing", "enum", "math")


def library_module(name: Optional[str]) -> bool:
    """Whether the module called `name` is library code: asc, numpy, torch, a registered code package, or a
    module installed with the interpreter (the standard library, site-packages: e.g. the helpers pytest's
    assertion rewriting calls from a kernel's `assert`)."""
    top = (name or "").split(".")[0]
    if top in LIBRARY_PACKAGES or top in _TRUSTED_PACKAGES:
        return True
    installed = _INSTALLED.get(name)
    if installed is None:
        module = sys.modules.get(name or "")
        file = getattr(module, "__file__", None)
        installed = bool(file) and os.path.realpath(file).startswith(_install_dirs())
        if module is not None:
            _INSTALLED[name] = installed
    return installed


_INSTALLED: dict[Optional[str], bool] = {}  # by module name: installed with the interpreter


def _install_dirs() -> tuple[str, ...]:
    """Where the interpreter's own and installed modules live (not an editable install's source tree)."""
    import site
    import sysconfig

    paths = sysconfig.get_paths()
    dirs = {paths[k] for k in ("stdlib", "platstdlib", "purelib", "platlib") if k in paths}
    dirs.update(getattr(site, "getsitepackages", lambda: [])())
    return tuple(os.path.join(os.path.realpath(d), "") for d in dirs)


class LiveCells(Mapping):
    """A function's closure by name, read from its cells at each lookup: a `nonlocal` rebinding (or a cell
    filled after the function was made) is seen. Cells not yet filled are absent."""

    __slots__ = ("_cells",)

    def __init__(self, fn: Callable[..., Any]):
        code = getattr(fn, "__code__", None)
        self._cells = dict(zip(code.co_freevars, fn.__closure__ or ())) if code is not None else {}

    def get(self, name: str, default: Any = None) -> Any:
        cell = self._cells.get(name)
        if cell is None:
            return default
        try:
            return cell.cell_contents
        except ValueError:
            return default

    def __getitem__(self, name: str) -> Any:
        value = self.get(name, _ABSENT)
        if value is _ABSENT:
            raise KeyError(name)
        return value

    def __contains__(self, name: object) -> bool:
        return self.get(name, _ABSENT) is not _ABSENT  # type: ignore[arg-type]

    def __iter__(self) -> Iterator[str]:
        return (name for name in list(self._cells) if name in self)

    def __len__(self) -> int:
        return sum(1 for _ in self)


def _is_array(value: Any) -> bool:
    """A numpy array or a torch tensor: their elements change in place."""
    np = sys.modules.get("numpy")
    if np is not None and isinstance(value, np.ndarray):
        return True
    torch = sys.modules.get("torch")
    return torch is not None and isinstance(value, torch.Tensor)


def refusal(value: Any, attributes: bool = False) -> Optional[str]:
    """Why a kernel may not read `value` at compile time (None: it may); with `attributes`, why it may not
    read the value's attributes. The caches key what a kernel reads by value (constants, tuples of them)
    or identity (functions, classes, other objects); a mutable container, or the attributes of an instance
    of a user class, can change without anything being rebound, so no key sees the change and the kernel
    would run with what it read at an earlier compile."""
    if isinstance(value, _MUTABLE) or _is_array(value):
        return f"a {type(value).__name__}, which can change without being rebound (no cache key would see it)"
    if isinstance(value, (tuple, frozenset)):
        for v in value:
            why = refusal(v, attributes)
            if why is not None:
                return f"a {type(value).__name__} holding {why}"
        return None
    if isinstance(value, _IMMUTABLE) or isinstance(value, _NAMESPACES):
        return None
    from .function import Function

    if not attributes or isinstance(value, Function):
        return None
    if library_module(type(value).__module__):
        return None
    return (
        f"an attribute of a {type(value).__qualname__} object, which can change without the object being rebound "
        "(no cache key would see it)"
    )


_MODULE_TREES: dict[tuple[str, float], ast.Module] = {}  # (file, mtime) -> its AST, parsed once


def _from_module(fn: Callable[..., Any]) -> tuple[str, ast.FunctionDef, str] | None:
    """(file, the function's node in its module's AST, the function's text), or None where the module's
    file cannot be read and parsed (then inspect extracts the source)."""
    code = fn.__code__
    file = code.co_filename
    try:
        mtime = os.stat(file).st_mtime
        tree = _MODULE_TREES.get((file, mtime))
        if tree is None:
            with open(file, encoding="utf-8") as f:
                tree = _MODULE_TREES[(file, mtime)] = ast.parse(f.read(), file)
        lines = linecache.getlines(file)
    except (OSError, SyntaxError, ValueError):
        return None
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.name == fn.__name__:
            first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            if first == code.co_firstlineno:
                return file, node, "".join(lines[first - 1 : node.end_lineno])
    return None


class FunctionSource:
    def __init__(self, fn: Callable[..., Any]):
        self.fn = fn
        self.name = fn.__name__
        found = _from_module(fn) if hasattr(fn, "__code__") else None
        if found is not None:  # positions in the tree are the file's own
            self.file, tree, self.text = found
            self.line_offset = self.col_offset = 0
            start = min([tree.lineno, *(d.lineno for d in tree.decorator_list)])
        else:
            try:
                self.file = inspect.getsourcefile(fn) or "<unknown>"
                lines, start = inspect.getsourcelines(fn)
            except (OSError, TypeError) as e:
                raise CodegenError(f"cannot read the source of kernel '{fn.__name__}': {e}") from None
            self.text = "".join(lines)
            self.line_offset = start - 1
            self.col_offset = len(lines[0]) - len(lines[0].lstrip())
            tree = ast.parse(textwrap.dedent(self.text)).body[0]
            if not isinstance(tree, ast.FunctionDef):
                raise CodegenError(f"@asc.jit needs a function definition, got {type(tree).__name__}", self.file, start)
        self.tree: ast.FunctionDef = tree
        self.line = start
        self.globals: dict[str, Any] = fn.__globals__
        self.closure: Mapping[str, Any] = LiveCells(fn)  # read at each lookup: a nonlocal rebinding is seen

    def location(self, node: ast.AST) -> tuple[str, int, int]:
        return self.file, node.lineno + self.line_offset, node.col_offset + self.col_offset + 1

    def resolve_global(self, name: str) -> tuple[bool, Any]:
        if name in self.closure:
            return True, self.closure[name]
        if name in self.globals:
            return True, self.globals[name]
        return False, None

    def referenced_globals(self) -> dict[str, Any]:
        """Module-level names the function reads (part of the specialisation key)."""
        out = {}
        for node in ast.walk(self.tree):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
                found, value = self.resolve_global(node.id)
                if found:
                    out[node.id] = value
        return out
