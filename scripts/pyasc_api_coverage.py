#!/usr/bin/env python3
"""Which of pyasc's documented Python API names asc lacks: every page of the reference repository's
docs/python-api named `asc.<dotted.name>` is resolved against the installed `asc`, attribute by attribute.

    PYASC_REF=/path/to/hicann+pyasc/repo python3 scripts/pyasc_api_coverage.py [prefix ...]

PYASC_REF is pyasc's bare git directory (the search tool's `fetch github:hicann/pyasc`); prefixes (default
`asc.language.basic asc.language.adv`) select the pages. Prints the missing names and exits 1 if there are any."""

import os
import subprocess
import sys
from pathlib import PurePosixPath


def page_names(git_dir: str, prefixes: list[str]) -> list[str]:
    listing = subprocess.run(["git", f"--git-dir={git_dir}", "ls-tree", "-r", "--name-only", "HEAD", "docs/python-api"],
                             capture_output=True, text=True, check=True).stdout.split()  # fmt: skip
    names = {PurePosixPath(p).stem for p in listing if PurePosixPath(p).suffix in (".rst", ".md")}
    return sorted(n for n in names if any(n == p or n.startswith(p + ".") for p in prefixes))


def resolves(name: str) -> bool:
    import asc

    obj = asc
    for part in name.split(".")[1:]:
        if part == "language":  # asc.language.basic.x is asc.x; asc.language.adv.x is asc.adv.x
            continue
        if part == "basic" and obj is asc:
            continue
        if not hasattr(obj, part):
            return False
        obj = getattr(obj, part)
    return True


def main() -> int:
    git_dir = os.environ.get("PYASC_REF")
    if not git_dir:
        print("set PYASC_REF to pyasc's git directory", file=sys.stderr)
        return 2
    prefixes = sys.argv[1:] or ["asc.language.basic", "asc.language.adv"]
    names = page_names(git_dir, prefixes)
    missing = [n for n in names if not resolves(n)]
    for n in missing:
        print(n)
    print(f"{len(names) - len(missing)} of {len(names)} documented names resolve", file=sys.stderr)
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
