#!/usr/bin/env python3
"""The layering check (docs/architecture.md, "Layers"): each layer includes only the layers below it.

C++: every `#include "x/..."` in src/ and capi/ is checked against the rules below, where x is the first
component of the included path ("runtime/acl/..." counts as runtime/acl). Includes without a directory
(capi's own headers) and of the public header (asc/asc.h) are always allowed.

Python: no module under python/asc/codegen/ imports asc.runtime, and none under python/asc/_C/ imports
asc.runtime, asc.codegen or asc.language (PY_FORBIDDEN; absolute or relative, at module level or inside a
function).

Prints `file:line: <layer> must not include <layer>` (or `... must not import asc.runtime`) for each
violation and exits with status 1 if there is one. Python 3, no dependencies.

    python3 scripts/check_layers.py [--root DIR]
"""

from __future__ import annotations

import argparse
import ast
import re
import sys
from pathlib import Path

# Layer -> the layers its files may include (itself included).
ALLOWED = {
    "support": {"support"},
    "ir": {"support", "ir"},
    "passes": {"support", "ir", "passes"},
    "target": {"support", "ir", "target"},
    "sim": {"support", "ir", "target", "sim"},
    "codegen": {"support", "ir", "target", "codegen"},
    "runtime/acl": {"support", "ir", "passes", "target", "codegen", "runtime", "runtime/acl"},
    "runtime": {"support", "ir", "passes", "target", "sim", "codegen", "runtime", "runtime/acl"},
    "capi": {"support", "ir", "passes", "target", "sim", "codegen", "runtime", "runtime/acl", "capi"},
    # build tools (op_table_gen): programs over the library, never linked into it
    "tools": {"support", "ir", "passes", "target", "sim", "codegen", "runtime", "runtime/acl", "tools"},
}

# Imports of asc.runtime from asc.codegen that are allowed while a change removing them lands (printed as notes;
# the check says when an entry no longer matches anything). None today.
TEMPORARY_ALLOWED_IMPORTS: set[tuple[str, str]] = set()

INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"')
CXX_SUFFIXES = {".h", ".hpp", ".cpp", ".cc", ".c", ".def", ".inc"}


def layer_of_path(rel: str) -> str | None:
    """The layer a file of the tree belongs to ("src/runtime/acl/x.cpp" -> "runtime/acl"), or None."""
    parts = rel.split("/")
    if parts[0] == "capi":
        return "capi"
    if parts[0] != "src" or len(parts) < 3:
        return None
    if parts[1] == "runtime" and len(parts) >= 4 and parts[2] == "acl":
        return "runtime/acl"
    return parts[1] if parts[1] in ALLOWED else None


def layer_of_include(path: str) -> str | None:
    """The layer an included path names ("runtime/acl/acl_api.h" -> "runtime/acl"), or None (not a layer)."""
    parts = path.split("/")
    if len(parts) < 2:
        return None
    if parts[0] == "runtime" and len(parts) >= 3 and parts[1] == "acl":
        return "runtime/acl"
    return parts[0] if parts[0] in ALLOWED else None


def check_cxx(root: Path) -> list[str]:
    errors = []
    for top in ("src", "capi"):
        base = root / top
        if not base.is_dir():
            continue
        for f in sorted(base.rglob("*")):
            if not f.is_file() or f.suffix not in CXX_SUFFIXES:
                continue
            rel = f.relative_to(root).as_posix()
            layer = layer_of_path(rel)
            if layer is None:
                continue
            for n, line in enumerate(f.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
                m = INCLUDE.match(line)
                if not m:
                    continue
                target = layer_of_include(m.group(1))
                if target is not None and target not in ALLOWED[layer]:
                    errors.append(f"{rel}:{n}: {layer} must not include {target}")
    return errors


# Python packages -> the asc packages they must not import. asc._C (the NPU build's stages, over the C ABI)
# stands below the front end and the runtime, which call it.
PY_FORBIDDEN = {
    "codegen": ("asc.runtime",),
    "_C": ("asc.runtime", "asc.codegen", "asc.language"),
}


def is_runtime(module: str, forbidden: tuple[str, ...] = ("asc.runtime",)) -> bool:
    return any(module == f or module.startswith(f + ".") for f in forbidden)


def runtime_imports(tree: ast.AST, package: str, forbidden: tuple[str, ...] = ("asc.runtime",)):
    """(line, module) for every import statement in the tree that reaches a `forbidden` package (asc.runtime);
    relative imports are resolved against `package`, and `from asc import runtime` counts."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            modules = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parts = package.split(".")
                base = parts[: max(len(parts) - (node.level - 1), 0)]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            modules = [module] + [f"{module}.{alias.name}" for alias in node.names]
        else:
            continue
        reached = [m for m in modules if is_runtime(m, forbidden)]
        if reached:
            yield node.lineno, reached[0]


def check_python(root: Path) -> tuple[list[str], list[str]]:
    errors, notes = [], []
    used = set()
    files = []
    for layer, forbidden in PY_FORBIDDEN.items():
        base = root / "python" / "asc" / layer
        files += [(f, layer, forbidden) for f in sorted(base.rglob("*.py"))] if base.is_dir() else []
    for f, layer, forbidden in files:
        rel = f.relative_to(root).as_posix()
        package = ".".join(f.relative_to(root / "python").with_suffix("").parts[:-1])
        tree = ast.parse(f.read_text(encoding="utf-8"), filename=rel)
        for line, module in runtime_imports(tree, package, forbidden):
            top = next(x for x in forbidden if is_runtime(module, (x,)))
            message = f"{rel}:{line}: asc.{layer} must not import {top} ({module})"
            if (rel, module) in TEMPORARY_ALLOWED_IMPORTS:
                used.add((rel, module))
                notes.append(f"{message} [allowed for now: TEMPORARY_ALLOWED_IMPORTS in scripts/check_layers.py]")
            else:
                errors.append(message)
    for rel, module in sorted(TEMPORARY_ALLOWED_IMPORTS - used):
        notes.append(f"{rel}: no longer imports {module}; remove its TEMPORARY_ALLOWED_IMPORTS entry")
    return errors, notes


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=Path(__file__).resolve().parent.parent, help="the source tree")
    args = parser.parse_args(argv)
    errors = check_cxx(args.root)
    py_errors, notes = check_python(args.root)
    errors += py_errors
    for note in notes:
        print(f"note: {note}")
    for e in errors:
        print(e)
    if errors:
        print(f"layers: {len(errors)} violation(s); the rules are in docs/architecture.md (Layers)")
        return 1
    print("layers: OK")
    return 0


if __name__ == "__main__":
    sys.exit(main())
