"""Writes docs/instructions.md: every vector instruction and the dtypes it
accepts, read from libasc's op table (so the page cannot drift from the code).

    python -m asc.tools.instruction_table > docs/instructions.md
"""

from __future__ import annotations

from .._ffi import ffi, lib
from ..language.core.dtype import ALL_DTYPES

OPERANDS = {1: "dst, src0, src1", 2: "dst, src", 3: "dst, src, scalar", 4: "dst, scalar"}


def rows() -> list[tuple[str, str, str, str]]:
    out = []
    desc = ffi.new("asc_op_desc_t*")
    for i in range(lib.asc_op_count()):
        lib.asc_op_describe(i, desc)
        if not desc.family or desc.mask_mode:
            continue
        name = ffi.string(desc.name).decode()
        dtypes = ", ".join(d.name for d in ALL_DTYPES if desc.dtypes & (1 << d.code))
        out.append((name, ffi.string(desc.ascendc).decode(), OPERANDS[desc.family], dtypes))
    return out


def render() -> str:
    lines = [
        "# Vector instructions",
        "",
        "Generated from libasc's op table by `python -m asc.tools.instruction_table`; a test checks it is current.",
        "",
        "Every instruction has two forms: `asc.<name>(<operands>, count)` (the first `count` elements) and",
        "`asc.<name>(<operands>, mask, repeat_times, repeat_params)` (mask/repeat mode; `mask` is an int — the",
        "first `mask` elements of each 256-byte repeat — or a pair of 64-bit words, one bit per element;",
        "`repeat_params` is `asc.BinaryRepeatParams` for three-tensor instructions and `asc.UnaryRepeatParams`",
        "otherwise). All run on pipe V. See [the basic API](basic-api.md) for the rules.",
        "",
        "| instruction | Ascend C | operands | dtypes |",
        "|---|---|---|---|",
    ]
    lines += [f"| `{name}` | `{ascendc}` | {operands} | {dtypes} |" for name, ascendc, operands, dtypes in rows()]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    print(render(), end="")
