"""Writes docs/instructions.md: every vector-pipe instruction, what it
computes, its forms and the dtypes it accepts, read from libasc's op table (so
the page cannot drift from the code).

    python -m asc.tools.instruction_table > docs/instructions.md

(`cmake --build build --target generate` writes it too, with the Python wrappers.)
"""

from __future__ import annotations

from .._ffi import ffi, lib
from ..language.core.dtype import ALL_DTYPES

PIPE_V = 1
# IR op-name suffixes of the other forms of one instruction, and what each form is
FORMS = {".mask": "mask/repeat", ".register": "CMPMASK register", ".ext": "NCHW/NHWC with a scratch buffer",
         ".pattern": "built-in pattern"}  # fmt: skip
# the form of an unsuffixed op that takes neither a count nor a mask
OTHER_FORMS = {"transpose": "one 16x16 matrix", "brcb": "repeats (BrcbRepeatParams)", "gather_mask": "pattern tensor"}
# IR ops that are one user-facing instruction under another name
ALIASES = {"select_scalar": "select", "compare_scalar": "compare_scalar", "data_copy.local_to_local": "data_copy",
           "data_copy.local_to_local.blocks": "data_copy"}  # fmt: skip
OPERANDS = {1: "dst, src0, src1", 2: "dst, src", 3: "dst, src, scalar", 4: "dst, scalar"}


def describe() -> list[dict]:
    """Every row of the op table, in table order, as the C ABI describes it (asc_op_describe)."""
    desc = ffi.new("asc_op_desc_t*")
    doc = ffi.new("const char**")
    out = []
    for i in range(lib.asc_op_count()):
        lib.asc_op_describe(i, desc)
        lib.asc_op_doc(i, doc)
        out.append({"name": ffi.string(desc.name).decode(), "ascendc": ffi.string(desc.ascendc).decode(),
                    "pipe": desc.pipe, "dtypes": desc.dtypes, "family": desc.family,
                    "mask": desc.mask_mode, "doc": ffi.string(doc[0]).decode()})  # fmt: skip
    return out


def rows() -> list[tuple[str, str, str, str, str]]:
    """(instruction, Ascend C, computes, forms, dtypes) for every instruction run on pipe V with a dtype set."""
    table: dict[str, dict] = {}
    for op in describe():
        if op["pipe"] != PIPE_V or not op["dtypes"]:
            continue
        base = op["name"]
        form = OTHER_FORMS.get(base, "mask/repeat" if op["mask"] else "count")
        for suffix, what in FORMS.items():
            if base.endswith(suffix):
                base, form = base[: -len(suffix)], what
        base = ALIASES.get(base, base)
        entry = table.setdefault(
            base, {"ascendc": op["ascendc"], "forms": [], "dtypes": 0, "family": op["family"], "doc": op["doc"]}
        )
        if form not in entry["forms"]:
            entry["forms"].append(form)
        entry["dtypes"] |= op["dtypes"]
    out = []
    for name, e in table.items():
        dtypes = ", ".join(d.name for d in ALL_DTYPES if e["dtypes"] & (1 << d.code))
        forms = ", ".join(e["forms"])
        if e["family"]:
            forms += f" ({OPERANDS[e['family']]})"
        out.append((name, e["ascendc"], e["doc"], forms, dtypes))
    return out


def render() -> str:
    lines = [
        "# Vector instructions",
        "",
        "Generated from libasc's op table by `python -m asc.tools.instruction_table`; a test checks it is current.",
        "",
        "Every instruction below runs on pipe V. Forms: *count* — `asc.<name>(..., count)`, the first `count`",
        "elements; *mask/repeat* — `asc.<name>(..., mask, repeat_times, repeat_params)`, where `mask` is an int",
        "(the first `mask` elements of each 256-byte repeat) or a pair of 64-bit words (one bit per element),",
        "or the mask register with `is_set_mask=False`. The dtypes are those the verifier accepts (for `cast`,",
        "the dtypes of its supported (src, dst) pairs; for `compare`, of the sources). See",
        "[the basic API](basic-api.md) for the rules of each. *computes* is the row's own line (`dst`, `src0`, `src1`,",
        "`src` and `scalar` name the operands; `dst` on the right is its old value).",
        "",
        "| instruction | Ascend C | computes | forms | dtypes |",
        "|---|---|---|---|---|",
    ]
    for name, ascendc, doc, forms, dtypes in rows():
        computes = "`" + doc.replace("|", "\\|") + "`" if doc else ""  # a | in a table cell is escaped
        lines.append(f"| `{name}` | `{ascendc}` | {computes} | {forms} | {dtypes} |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    import sys

    if len(sys.argv) > 1:  # the file to write (cmake --build build --target generate), else stdout
        with open(sys.argv[1], "w") as f:
            f.write(render())
    else:
        print(render(), end="")
