"""`import asc` and `import asc2` stay cheap: they import neither numpy nor torch (about 80 ms and seconds of a
fresh process; bench.py's import row is held to 150 ms). A kernel taking numpy arrays means its caller imported
numpy already, and the modules that read numpy values import it where they do."""

import json
import subprocess
import sys

import pytest

_PROBE = """
import json, sys
before = set(sys.modules)
import {module}
print(json.dumps(sorted({{m.split(".")[0] for m in set(sys.modules) - before}})))
"""


@pytest.mark.parametrize("module", ["asc", "asc2"])
def test_import_loads_no_numpy_or_torch(module):
    out = subprocess.run([sys.executable, "-c", _PROBE.format(module=module)], capture_output=True, text=True,
                         check=True).stdout  # fmt: skip
    loaded = set(json.loads(out))
    assert module in loaded  # the probe saw the import itself
    assert not loaded & {"numpy", "torch", "ml_dtypes", "matplotlib"}, sorted(loaded)
