"""scripts/check_layers.py: it fails on a tree that breaks the layering rules and passes on this one."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "check_layers.py"


def run(root):
    return subprocess.run(
        [sys.executable, str(SCRIPT), "--root", str(root)], capture_output=True, text=True, check=False
    )


def test_this_tree_keeps_its_layers():
    r = run(ROOT)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "layers: OK" in r.stdout


def test_broken_includes_and_imports_fail(tmp_path):
    files = {
        "src/ir/builder.cpp": '#include "ir/builder.h"\n#include "passes/pipeline.h"\n',
        "src/codegen/emit.cpp": '#include "target/cores.h"\n#include "sim/block.h"\n',
        "src/runtime/acl/launch.cpp": '#include "runtime/device.h"\n#include "sim/launch.h"\n',
        "src/sim/block.cpp": '#include "asc/asc.h"\n#include "runtime/device.h"\n',
        "src/runtime/stream.cpp": '#include "sim/launch.h"\n#include "codegen/ascendc_emitter.h"\n',
        "capi/runtime.cpp": '#include "handles.h"\n#include "runtime/stream.h"\n',
        "python/asc/codegen/visitor.py": "import os\n\n\ndef f():\n    from ..runtime.jit import JITFunction\n",
        "python/asc/codegen/other.py": "from asc import runtime\n",
        "python/asc/_C/stage.py": "from .. import _ffi\nfrom ..codegen import ir_builder\n",
    }
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    r = run(tmp_path)
    assert r.returncode == 1, r.stdout
    lines = set(r.stdout.splitlines())
    assert "src/ir/builder.cpp:2: ir must not include passes" in lines
    assert "src/codegen/emit.cpp:2: codegen must not include sim" in lines
    assert "src/runtime/acl/launch.cpp:2: runtime/acl must not include sim" in lines
    assert "src/sim/block.cpp:2: sim must not include runtime" in lines
    assert "python/asc/codegen/visitor.py:5: asc.codegen must not import asc.runtime (asc.runtime.jit)" in lines
    assert "python/asc/codegen/other.py:1: asc.codegen must not import asc.runtime (asc.runtime)" in lines
    assert "python/asc/_C/stage.py:2: asc._C must not import asc.codegen (asc.codegen)" in lines
    assert not any(line.startswith("python/asc/_C/stage.py:1") for line in lines), r.stdout
    assert not any(line.startswith(("src/runtime/stream.cpp", "capi/")) for line in lines), r.stdout
