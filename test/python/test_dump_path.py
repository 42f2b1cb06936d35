"""PYASC_DUMP_PATH: every finished kernel leaves its IR as built and after each pass, and its Ascend C."""

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
STAGES = ["0-built", "1-allocate_local", "2-lower_framework", "3-insert_sync", "4-common_values"]


def run_example(env_dump: str, tmp_path: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYASC_DUMP_PATH": env_dump, "PYASC_CACHE_DIR": str(tmp_path / "cache")}
    return subprocess.run(
        [sys.executable, str(ROOT / "examples" / "add_framework.py"), "-r", "Model", "-v", "Ascend910B1"],
        env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip


def test_each_stage_of_a_framework_kernel_is_written(tmp_path):
    dump = tmp_path / "dump"
    dump.mkdir()
    out = run_example(str(dump), tmp_path)
    assert out.returncode == 0, out.stderr
    texts = {stage: (dump / f"vadd_kernel-0.{stage}.ir").read_text() for stage in STAGES}
    assert "tque.alloc_tensor" in texts["0-built"] and "add_framework.py:" in texts["0-built"]
    # lowering replaces the framework objects by flags and fixed addresses; the later stages have none left
    for stage in STAGES[2:]:
        assert "tque." not in texts[stage] and "tpipe." not in texts[stage]
        assert "set_flag" in texts[stage] and "wait_flag" in texts[stage]
    written = [f"vadd_kernel-0.{s}.ir" for s in STAGES] + ["vadd_kernel-0.ascendc.cpp"]
    assert sorted(p.name for p in dump.iterdir()) == sorted(written)
    # the Ascend C of the finished kernel: the framework's flags as SetFlag/WaitFlag, lines from the user's file
    source = (dump / "vadd_kernel-0.ascendc.cpp").read_text()
    assert 'extern "C" __global__ __aicore__ void vadd_kernel(GM_ADDR v0, GM_ADDR v1, GM_ADDR v2' in source
    assert "AscendC::SetFlag<AscendC::HardEvent::MTE2_V>" in source and "AscendC::Add(" in source
    assert re.search(r'#line \d+ ".*add_framework.py"', source)


def test_a_dump_directory_that_cannot_be_written_is_an_error(tmp_path):
    out = run_example(str(tmp_path / "missing" / "dir"), tmp_path)
    assert out.returncode != 0
    assert "PYASC_DUMP_PATH: cannot write" in out.stderr and "missing/dir/vadd_kernel-0.0-built.ir" in out.stderr
