"""Writes seed inputs for fuzz_capi from the examples' real kernels.

Each example runs on the Model backend; every kernel it builds is captured as
(parameters, build log) and written in fuzz_capi's input format (README.md) in
log mode: replay the log, finish, launch on 8 blocks with 8 KiB buffers and
the scalar 256. The fuzzer starts from kernels that verify and run, so its
mutations reach the passes and the simulator, not only the argument checks.

    python3 test/fuzz/make_seeds.py test/fuzz/corpus test/fuzz/regressions

The second directory gets the inputs of past findings that a kernel of this
file reproduces (endless_loop: a loop that ran for hours before the stream
option max_ops existed).
"""

import hashlib
import runpy
import struct
import sys
from pathlib import Path

import numpy as np

import asc
from asc.codegen.ir_builder import IRBuilder

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ["add.py", "add_framework.py", "add_auto_sync.py", "softmax.py", "gelu.py", "layernorm.py", "matmul.py"]
TYPE_SCALAR = 1


def capture() -> list[tuple[list, bytes]]:
    """Runs the examples, keeping what each kernel build was given and its log."""
    builds = []
    init, finish = IRBuilder.__init__, IRBuilder.finish

    def recording_init(self, name, params, file, line):
        self.fuzz_params = list(params)
        init(self, name, params, file, line)

    def recording_finish(self):
        builds.append((self.fuzz_params, self.build_log()))
        return finish(self)

    IRBuilder.__init__, IRBuilder.finish = recording_init, recording_finish
    sys.path.insert(0, str(ROOT / "examples"))
    for example in EXAMPLES:
        sys.argv = [example, "-r", "Model", "-v", "Ascend910B1"]
        try:
            runpy.run_path(str(ROOT / "examples" / example), run_name="__main__")
        except SystemExit as e:  # an example's main() ends with sys.exit()
            if e.code:
                raise
    return builds


@asc.jit
def endless_loop(x: asc.GlobalAddress):
    n = 0
    for _ in range(2**31 - 1):
        n = n + 1


def seed(params: list, log: bytes) -> bytes:
    out = bytearray([1, len(params)])  # log mode; the parameter count
    for kind, dtype, position in params:
        out += bytes([1 if kind == TYPE_SCALAR else 0, dtype, position])
    out += bytes([0])  # the kernel's name: "fuzzed"
    out += struct.pack("<H", len(log)) + log
    out += bytes([0, 0, 0])  # builder print, log and kernel print into no room
    out += bytes([0, 8])  # no stream options; 8 blocks
    for kind, _, _ in params:
        out += bytes([0]) + (bytes([200]) + struct.pack("<H", 256) if kind == TYPE_SCALAR else struct.pack("<H", 8192))
    return bytes(out + bytes([0]))  # the argument count the parameters give


def write(directory: Path, prefix: str, params: list, log: bytes) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    data = seed(params, log)
    (directory / f"{prefix}-{hashlib.sha1(data).hexdigest()[:16]}").write_bytes(data)


def main() -> None:
    corpus, regressions = Path(sys.argv[1]), Path(sys.argv[2])
    for params, log in capture():
        if len(params) <= 6 and len(log) < 65536:
            write(corpus, "seed", params, log)
    builds = []
    finish = IRBuilder.finish
    IRBuilder.finish = lambda self: builds.append((self.fuzz_params, self.build_log())) or finish(self)
    endless_loop.ir(np.zeros(8, np.float32))
    write(regressions, "endless-loop", *builds[0])


if __name__ == "__main__":
    main()
