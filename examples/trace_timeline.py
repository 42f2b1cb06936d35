"""Profile the framework Add kernel on the Model and draw its pipe timeline.

    python examples/trace_timeline.py -r Model -v Ascend910B1 [-o timeline.png]

Runs examples/add_framework.py's kernel with single and double buffering,
writes each launch's Chrome trace (open it in Perfetto or chrome://tracing),
and draws core 0's MTE2 / V / MTE3 tracks of both as one PNG: with two
buffers the copy-in of the next tile overlaps the add of this one.
"""

import argparse
import json
import tempfile
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

import asc  # noqa: E402
import asc.lib.runtime as rt  # noqa: E402

from add_framework import compute, copy_in, copy_out  # noqa: E402, F401
from common import parse_args  # noqa: E402

TILE_NUM = 8
TRACKS = ("MTE2", "V", "MTE3")
COLOURS = {"MTE2": "tab:blue", "V": "tab:orange", "MTE3": "tab:green"}


@asc.jit
def vadd(x: asc.GlobalAddress, y: asc.GlobalAddress, z: asc.GlobalAddress, BUFFERS: asc.ConstExpr[int],
         TILE: asc.ConstExpr[int]):  # fmt: skip
    x_gm = asc.GlobalTensor()
    y_gm = asc.GlobalTensor()
    z_gm = asc.GlobalTensor()
    x_gm.set_global_buffer(x)
    y_gm.set_global_buffer(y)
    z_gm.set_global_buffer(z)
    pipe = asc.TPipe()
    in_x = asc.TQue(asc.TPosition.VECIN, BUFFERS)
    in_y = asc.TQue(asc.TPosition.VECIN, BUFFERS)
    out_z = asc.TQue(asc.TPosition.VECOUT, BUFFERS)
    pipe.init_buffer(in_x, BUFFERS, TILE * 4)
    pipe.init_buffer(in_y, BUFFERS, TILE * 4)
    pipe.init_buffer(out_z, BUFFERS, TILE * 4)
    for i in range(TILE_NUM):
        copy_in(i, x_gm, y_gm, in_x, in_y, TILE)
        compute(x.dtype, in_x, in_y, out_z, TILE)
        copy_out(i, z_gm, out_z, TILE)


def profile(buffers: int, directory: Path, tile: int = 2048) -> tuple[list, float]:
    """Runs the kernel with a profile directory; returns core 0's ops and the estimated time."""
    x = np.random.default_rng(0).random(TILE_NUM * tile, dtype=np.float32)
    z = np.zeros_like(x)
    stream = rt.current_stream()
    stream.set_profile_dir(str(directory))
    try:
        vadd[1, stream](x, x, z, buffers, tile)
    finally:
        stream.set_profile_dir(None)
    assert np.array_equal(z, x + x)
    trace = json.loads((directory / "vadd.trace.json").read_text())
    names = {e["tid"]: e["args"]["name"] for e in trace["traceEvents"] if e.get("name") == "thread_name"}
    ops = [(names[e["tid"]], e["ts"], e["dur"], e["name"]) for e in trace["traceEvents"]
           if e.get("ph") == "X" and e["pid"] == 0 and names[e["tid"]] in TRACKS and e["dur"] > 0.01]  # fmt: skip
    return ops, rt.last_launch_stats().duration_us


def draw(runs: dict, out: Path) -> None:
    fig, axes = plt.subplots(len(runs), 1, figsize=(10, 1.6 * len(runs) + 0.6), sharex=True)
    for ax, (label, (ops, duration)) in zip(np.atleast_1d(axes), runs.items()):
        for name, start, dur, _ in ops:
            ax.broken_barh([(start, dur)], (TRACKS.index(name) - 0.4, 0.8), color=COLOURS[name])
        ax.set_yticks(range(len(TRACKS)), TRACKS)
        ax.invert_yaxis()
        ax.set_title(f"{label}: {duration:.1f} us (estimated)", fontsize=10, loc="left")
    np.atleast_1d(axes)[-1].set_xlabel("time (us) on the Model's timing model, core 0")
    fig.tight_layout()
    fig.savefig(out, dpi=110)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("-o", default="timeline.png", help="where to write the picture")
    args = parse_args(__doc__, parser)
    with tempfile.TemporaryDirectory() as tmp:
        runs = {}
        for buffers in (1, 2):
            directory = Path(tmp) / f"buffers{buffers}"
            directory.mkdir()
            runs[f"TQue depth {buffers}"] = profile(buffers, directory)
    draw(runs, Path(args.o))
    (single, t1), (double, t2) = runs.values()
    if not t2 < t1:
        raise SystemExit("[FAIL] double buffering was not faster")
    print(f"[PASS] trace_timeline: depth 1 {t1:.1f} us, depth 2 {t2:.1f} us; picture in {args.o}")


if __name__ == "__main__":
    main()
