"""The documentation's examples run: every ```python block of README.md and
docs/*.md as a program, and every ```c block compiled against libasc.so."""

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from asc import _ffi

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def blocks(lang):
    for page in PAGES:
        for i, match in enumerate(re.finditer(rf"```{lang}\n(.*?)```", page.read_text(), re.S)):
            yield pytest.param(match[1], id=f"{page.name}-{i}")


@pytest.mark.parametrize("code", list(blocks("python")))
def test_python_examples_run(code, tmp_path):
    script = tmp_path / "example.py"
    script.write_text(code)
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr


# The sanitizer run (scripts/sanitize.sh) compiles them with its compiler and flags (ASC_TEST_CC).
CC = shlex.split(os.environ.get("ASC_TEST_CC", "cc"))


@pytest.mark.skipif(shutil.which(CC[0]) is None, reason="needs a C compiler")
@pytest.mark.parametrize("code", list(blocks("c")))
def test_c_examples_build_and_pass(code, tmp_path):
    source = tmp_path / "example.c"
    source.write_text(code)
    lib_dir = Path(_ffi.library_path).parent
    exe = tmp_path / "example"
    cc = subprocess.run(
        [*CC, "-std=c99", "-Wall", "-Werror", f"-I{ROOT / 'include'}", str(source), str(_ffi.library_path),
         f"-Wl,-rpath,{lib_dir}", "-o", str(exe)],
        capture_output=True, text=True,
    )  # fmt: skip
    assert cc.returncode == 0, cc.stderr
    run = subprocess.run([str(exe)], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0 and "PASS" in run.stdout, run.stdout + run.stderr


def test_instruction_table_is_current():
    from asc.tools.instruction_table import render

    assert (ROOT / "docs" / "instructions.md").read_text() == render(), (
        "docs/instructions.md is stale: python -m asc.tools.instruction_table > docs/instructions.md"
    )
