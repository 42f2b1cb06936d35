"""bench/bench.py --quick runs end to end: it checks the Add kernel's result and that the disk cache
misses in a fresh process and hits in the next, and prints every row with a measured ratio."""

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_bench_quick_prints_every_row():
    out = subprocess.run([sys.executable, str(ROOT / "bench" / "bench.py"), "--quick"], capture_output=True,
                         text=True, timeout=600)  # fmt: skip
    assert out.returncode == 0, out.stderr
    rows = [line for line in out.stdout.splitlines() if line.startswith("| ") and not line.startswith("| what")]
    names = [row.split(" | ")[0][2:] for row in rows]
    for wanted in ("launch, no-op, 8 blocks", "Add 1M float32", "compile add_framework, fresh process",
                   "compile add_framework, from disk cache", "import asc", "conv2d 1x3x56x56",
                   "max_pool2d 1x64x56x56"):  # fmt: skip
        assert any(name.startswith(wanted) for name in names), (wanted, names)
    for row in rows:
        ratio = float(row.split(" | ")[3])
        assert ratio > 0 and re.search(r"\d+\.\d+ (us|ms)", row), row
