"""A whole-array statement as an asc2 kernel: the arrays flattened, each core taking every
block_num-th tile, loads double-buffered and synchronised by asc2."""

from __future__ import annotations

import numpy as np

from .generated import HEADER, literal
from .symbols import ArrayView, Elementwise, Param

ASC_DTYPES = {np.dtype(np.float32): "float32", np.dtype(np.float16): "float16", np.dtype(np.int32): "int32"}

_BINARY = {"add": "({} + {})", "sub": "({} - {})", "mul": "({} * {})", "div": "({} / {})"}
_CALLS = {"neg": "(-{})", "copy": "{}", "exp": "asc2.exp({})", "log": "asc2.log({})", "sqrt": "asc2.sqrt({})",
          "abs": "asc2.abs({})", "maximum": "asc2.maximum({}, {})", "minimum": "asc2.minimum({}, {})"}  # fmt: skip


def inputs(expr: Elementwise) -> list[Param]:
    out: list[Param] = []
    for view in expr.arrays():
        if all(view.param is not p for p in out):
            out.append(view.param)
    return out


def source(name: str, target: Param, expr: Elementwise, origin: str) -> str:
    params = inputs(expr)
    names = {id(p): f"x{i}" for i, p in enumerate(params)}
    dtype = ASC_DTYPES[target.dtype]

    def emit(node: object) -> str:
        if isinstance(node, ArrayView):
            return names[id(node.param)]
        if isinstance(node, (int, float)):
            return literal(float(node))
        assert isinstance(node, Elementwise)
        if node.op == "fill":
            return f"asc2.full([tile], {literal(node.args[0])}, dtype=asc.{dtype})"
        args = [emit(a) for a in node.args]
        pattern = _BINARY.get(node.op) or _CALLS[node.op]
        return pattern.format(*args)

    pointers = "".join(f", {n}_ptr: asc.GlobalAddress" for n in names.values())
    lines = [
        HEADER.format(origin=origin),
        "",
        "@asc2.jit",
        f"def {name}(out_ptr: asc.GlobalAddress{pointers}, size: int, tile: asc.ConstExpr[int]):",
        "    out_t = asc2.tensor(out_ptr, [size])",
        *(f"    {n}_t = asc2.tensor({n}_ptr, [size])" for n in names.values()),
        "    for i in range(asc2.block_idx() * tile, size, asc2.block_num() * tile):",
        *(f"        {n} = asc2.load({n}_t, [tile], offsets=[i])" for n in names.values()),
        f"        asc2.store({emit(expr)}, out_t, offsets=[i])",
        "",
    ]
    return "\n".join(lines)
