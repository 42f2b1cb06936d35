"""docs/bad-input.md: every row names the tests that cover it, and those tests exist."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "bad-input.md"
SECTIONS = ("C ABI misuse", "DSL misuse", "Runtime faults")


def rows() -> dict[str, list[tuple[str, str]]]:
    """Section title -> (bad input, test cell) of each table row."""
    out: dict[str, list[tuple[str, str]]] = {}
    section = None
    for line in PAGE.read_text().splitlines():
        if line.startswith("## "):
            section = line[3:].strip()
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")] if line.startswith("|") else []
        if len(cells) == 3 and section and cells[0] not in ("bad input", "---") and not set(cells[0]) <= {"-"}:
            out.setdefault(section, []).append((cells[0], cells[2]))
    return out


def cpp_test_exists(binary: str, name: str) -> bool:
    suite, _, test = name.partition(".")
    pattern = re.compile(rf"TEST(_F|_P)?\(\s*{re.escape(suite)}\s*,\s*{re.escape(test)}\s*\)")
    return any(pattern.search(p.read_text()) for p in (ROOT / "test" / "cpp").glob("*.cpp"))


def python_test_exists(file: str, name: str) -> bool:
    path = ROOT / "test" / "python" / file
    return path.exists() and re.search(rf"^def {re.escape(name)}\(", path.read_text(), re.M) is not None


def test_every_section_has_rows():
    found = rows()
    for section in SECTIONS:
        assert len(found.get(section, [])) >= 5, f"section '{section}' of bad-input.md has too few rows"


def test_every_row_names_tests_that_exist():
    missing = []
    for section, table in rows().items():
        for bad_input, cell in table:
            refs = [r.strip().strip("`") for r in cell.split("<br>") if r.strip()]
            assert refs, f"{section}: '{bad_input}' names no test"
            for ref in refs:
                cpp = re.fullmatch(r"(test_\w+): (\w+\.\w+)", ref)
                py = re.fullmatch(r"(test_\w+\.py)::(\w+)", ref)
                if cpp:
                    ok = cpp_test_exists(*cpp.groups())
                elif py:
                    ok = python_test_exists(*py.groups())
                else:
                    ok = False
                if not ok:
                    missing.append(f"{section}: '{bad_input}': {ref}")
    assert not missing, "bad-input.md names tests that do not exist:\n" + "\n".join(missing)
