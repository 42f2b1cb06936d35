"""Every vector instruction of the op table (src/ir/vector_ops.def) has its Python wrapper, asc.<name>,
generated from the row (python/asc/language/basic/vec_ops.py) or hand-written (copy): the wrapper takes the
family's operands and its docstring names the row's Ascend C instruction. The op table is read through the
C ABI (asc_op_describe), as docs/instructions.md is."""

import inspect

import pytest

import asc
from asc.language.basic import vec_ops
from asc.tools.instruction_table import describe

# asc_op_desc_t.family: the operands before the call form's count or mask
OPERANDS = {1: ["dst", "src0", "src1"], 2: ["dst", "src"], 3: ["dst", "src", "scalar"], 4: ["dst", "scalar"]}
VECTOR_ROWS = [op for op in describe() if op["family"] and not op["name"].endswith(".mask")]


def test_the_table_has_vector_rows():
    assert len(VECTOR_ROWS) >= 30
    assert {op["name"] + ".mask" for op in VECTOR_ROWS} <= {op["name"] for op in describe()}


@pytest.mark.parametrize("row", VECTOR_ROWS, ids=[op["name"] for op in VECTOR_ROWS])
def test_every_vector_row_has_a_wrapper(row):
    name = row["name"]
    fn = getattr(asc, name, None)
    assert fn is not None, f"op table row {name} has no asc.{name}: cmake --build build --target generate"
    assert fn is getattr(asc.language.basic, name) and name in vec_ops.__all__
    assert getattr(fn, "__asc_builtin__", False), f"asc.{name} is not an asc builtin"
    assert row["ascendc"].startswith("AscendC::")
    assert f"``{row['ascendc']}``" in (fn.__doc__ or ""), f"asc.{name}'s docstring does not name {row['ascendc']}"
    assert row["doc"] and row["doc"] in fn.__doc__, f"asc.{name}'s docstring does not say {row['doc']!r}"
    params = list(inspect.signature(fn).parameters.values())
    leading = [p.name for p in params if p.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD]
    assert leading == OPERANDS[row["family"]], f"asc.{name} takes {leading}, its family {OPERANDS[row['family']]}"
    assert [p.kind for p in params[len(leading) :]] == [inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD]


def test_no_wrapper_without_a_row():
    assert set(vec_ops.__all__) == {op["name"] for op in VECTOR_ROWS}
