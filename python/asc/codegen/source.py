"""The parsed source of a Python function, with its file, line offsets and globals."""

from __future__ import annotations

import ast
import inspect
import linecache
import os
import textwrap
from typing import Any, Callable

from ..errors import CodegenError

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
        self.closure: dict[str, Any] = {}
        if fn.__closure__:
            for name, cell in zip(fn.__code__.co_freevars, fn.__closure__):
                try:
                    self.closure[name] = cell.cell_contents
                except ValueError:
                    pass

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
