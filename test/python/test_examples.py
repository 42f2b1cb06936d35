"""Every example runs on the Model and prints its PASS line."""

import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = [p for p in sorted((Path(__file__).resolve().parents[2] / "examples").glob("*.py"))
            if "__main__" in p.read_text()]  # fmt: skip


@pytest.mark.parametrize("script", EXAMPLES, ids=[p.name for p in EXAMPLES])
def test_example_passes(script, tmp_path):
    # operators.py runs the tutorials' full sizes: about 15 s, but some 3 minutes in the sanitizer build
    timeout = 900 if script.name == "operators.py" else 300
    out = subprocess.run([sys.executable, str(script), "-r", "Model", "-v", "Ascend910B1"], capture_output=True,
                         text=True, timeout=timeout, cwd=tmp_path)  # fmt: skip
    assert out.returncode == 0, out.stderr
    assert "[PASS]" in out.stdout


def test_timeline_example_draws_a_png(tmp_path):
    script = EXAMPLES[0].parent / "trace_timeline.py"
    out = subprocess.run([sys.executable, str(script), "-o", str(tmp_path / "t.png")], capture_output=True, text=True,
                         timeout=300)  # fmt: skip
    assert out.returncode == 0, out.stderr
    assert (tmp_path / "t.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_tile_api_example_runs_on_both_generations(tmp_path):
    script = EXAMPLES[0].parent / "tile_api.py"
    out = subprocess.run([sys.executable, str(script), "-r", "Model", "-v", "Ascend950PR_9599"], capture_output=True,
                         text=True, timeout=300, cwd=tmp_path)  # fmt: skip
    assert out.returncode == 0, out.stderr
    assert "[PASS] asc2 vector add and row softmax on Model/Ascend950PR_9599" in out.stdout
