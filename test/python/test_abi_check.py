"""scripts/abi_check.sh: the C ABI check passes on additions and fails on breaking changes.

Each case edits a copy of the recorded baseline so that the built libasc.so, compared with it, looks as if it had
removed a function, moved a struct member, added a function, or changed its SONAME.
"""

import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LIB = ROOT / "python" / "asc" / "_lib" / "libasc.so.1"
BASELINE = ROOT / "abi" / "libasc.so.1.abi"


def check(baseline: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [ROOT / "scripts" / "abi_check.sh", LIB],
        env={"PATH": "/usr/bin:/bin", "ASC_ABI_BASELINE": str(baseline)},
        capture_output=True,
        text=True,
        timeout=120,
    )


def function_entries(text: str, name: str) -> tuple[str, str]:
    """The ELF symbol line and the function declaration of one exported function."""
    symbol = re.search(rf"\n\s*<elf-symbol name='{name}'[^>]*/>", text).group(0)
    decl = re.search(rf"\n\s*<function-decl name='{name}'.*?</function-decl>", text, re.S).group(0)
    return symbol, decl


@pytest.fixture
def edited(tmp_path):
    """Writes an edited copy of the baseline and returns its path."""
    text = BASELINE.read_text()

    def write(edit) -> Path:
        changed = edit(text)
        assert changed != text, "the edit did not apply"
        path = tmp_path / "baseline.abi"
        path.write_text(changed)
        return path

    return write


def test_the_built_library_matches_its_baseline():
    result = check(BASELINE)
    assert result.returncode == 0, result.stderr
    assert "abi: OK" in result.stdout


def test_a_removed_function_fails(edited):
    def add_function_the_library_lacks(text):
        symbol, decl = function_entries(text, "asc_abi_version")
        text = text.replace(symbol, symbol + symbol.replace("asc_abi_version", "asc_withdrawn"))
        return text.replace(decl, decl + decl.replace("asc_abi_version", "asc_withdrawn"))

    result = check(edited(add_function_the_library_lacks))
    assert result.returncode == 1
    assert "asc_withdrawn" in result.stderr and "breaks the ABI" in result.stderr


def test_a_moved_struct_member_fails(edited):
    def move_member(text):  # asc_arg_t.f recorded at bit 192: the library has it at 128
        return text.replace(
            "layout-offset-in-bits='128'>\n        <var-decl name='f'",
            "layout-offset-in-bits='192'>\n        <var-decl name='f'",
        )

    result = check(edited(move_member))
    assert result.returncode == 1
    assert "'double f' offset changed from 192 to 128" in result.stderr


def test_an_added_function_passes(edited):
    def drop_function(text):  # the baseline predates asc_stream_set_stats_sink: the library adds it
        symbol, decl = function_entries(text, "asc_stream_set_stats_sink")
        return text.replace(symbol, "").replace(decl, "")

    result = check(edited(drop_function))
    assert result.returncode == 0, result.stderr
    assert "compatible additions" in result.stdout and "asc_stream_set_stats_sink" in result.stdout


def test_an_added_enumerator_passes(edited):
    def drop_last_status(text):
        last = re.search(r"\n\s*<enumerator name='ASC_ERR_[A-Z_]+' value='\d+'/>(?=\s*</enum-decl>)", text)
        return text.replace(last.group(0), "")

    result = check(edited(drop_last_status))
    assert result.returncode == 0, result.stderr


def test_another_major_version_fails(edited):
    result = check(edited(lambda text: text.replace("soname='libasc.so.1'", "soname='libasc.so.0'")))
    assert result.returncode == 1
