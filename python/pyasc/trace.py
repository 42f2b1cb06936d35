"""Compiling an operator body for concrete arguments: the body runs once in Python over symbolic arrays
(symbols.py). Shapes, attributes and `if`s are ordinary Python values; what touches array contents
becomes a step of the plan: a whole-array statement, or a loop nest (nest.py)."""

from __future__ import annotations

import ast
import copy
from typing import Any

import numpy as np

from asc.codegen.source import FunctionSource

from . import nest
from .errors import OperatorError
from .steps import ElementwiseStep, Step
from .symbols import ArrayView, Elementwise, Param, ShapeError, SlicedView

_RETURN = object()


class Tracer:
    def __init__(self, source: FunctionSource, params: list[Param], attrs: dict[str, Any], recognise: bool = True):
        self.source = source
        self.recognise = recognise  # False: every loop nest compiles to scalar code as written (opt_level 1)
        self.env: dict[str, Any] = dict(attrs)
        self.env.update({p.name: ArrayView(p) for p in params})
        self.steps: list[Step] = []
        self.zeroed: set[str] = set()  # parameters whose every element is 0 after the steps so far

    def run(self) -> list[Step]:
        self.block(self.source.tree.body)
        return self.steps

    # -- evaluation ----------------------------------------------------------------------------------
    def error(self, node: ast.AST, message: str) -> OperatorError:
        return OperatorError(message, *self.source.location(node))

    def eval(self, node: ast.expr, env: dict[str, Any] | None = None) -> Any:
        if isinstance(getattr(node, "ctx", None), ast.Store):  # a target, read as the value it names
            node = copy.deepcopy(node)
            for sub in ast.walk(node):
                if hasattr(sub, "ctx"):
                    sub.ctx = ast.Load()
        code = compile(ast.Expression(node), self.source.file, "eval")
        try:
            return eval(code, self.source.globals, self.env if env is None else env)  # noqa: S307 - the user's body
        except (ShapeError, IndexError, NameError, AttributeError) as e:
            raise self.error(node, str(e)) from None
        except TypeError as e:
            raise self.error(node, f"{e} (whole arrays take +, -, *, /, unary -, abs and numpy's exp, log, "
                             f"sqrt, maximum, minimum)") from None  # fmt: skip

    def bind(self, target: ast.expr, value: Any) -> None:
        if isinstance(target, ast.Name):
            self.env[target.id] = value
        elif isinstance(target, (ast.Tuple, ast.List)):
            values = list(value)
            if len(values) != len(target.elts):
                raise self.error(target, f"cannot unpack {len(values)} values into {len(target.elts)} names")
            for t, v in zip(target.elts, values):
                self.bind(t, v)
        else:
            raise self.error(target, f"cannot assign to {ast.unparse(target)} outside a loop")

    # -- statements ----------------------------------------------------------------------------------
    def block(self, body: list[ast.stmt]) -> Any:
        for node in body:
            if self.statement(node) is _RETURN:
                return _RETURN
        return None

    def statement(self, node: ast.stmt) -> Any:
        if isinstance(node, ast.Expr):
            if not isinstance(node.value, ast.Constant):  # a docstring is skipped
                self.eval(node.value)
        elif isinstance(node, ast.Assign):
            value = self.eval(node.value)
            for target in node.targets:
                if isinstance(target, ast.Subscript):
                    self.whole_array(node, target, value)
                else:
                    self.bind(target, value)
        elif isinstance(node, ast.AugAssign):
            op = _AUG.get(type(node.op))
            if isinstance(node.target, ast.Subscript):
                view = self.eval(node.target)
                if op is None or not isinstance(view, (ArrayView, SlicedView)):
                    raise self.error(node, f"unsupported whole-array statement: {ast.unparse(node)}")
                self.whole_array(node, node.target, Elementwise(op, (view, self.eval(node.value))))
            elif isinstance(node.target, ast.Name):
                self.bind(node.target, self.eval(ast.BinOp(node.target, node.op, node.value, **_pos(node))))
            else:
                raise self.error(node, f"cannot assign to {ast.unparse(node.target)}")
        elif isinstance(node, ast.If):
            test = self.eval(node.test)
            if isinstance(test, (ArrayView, Elementwise)):
                raise self.error(node.test, "an `if` outside a loop tests Python values (shapes, attributes), "
                                 "not array contents")  # fmt: skip
            return self.block(node.body if test else node.orelse)
        elif isinstance(node, ast.Raise):
            if node.exc is None:
                raise self.error(node, "a bare `raise` has nothing to re-raise here")
            raise self.eval(node.exc)
        elif isinstance(node, ast.Return):
            return _RETURN
        elif isinstance(node, ast.For):
            step = nest.compile_nest(node, self)
            if getattr(step, "overwrites", False) and self.steps and _zero_fill_of(self.steps[-1], step.target):
                self.steps.pop()  # the nest writes every element of the array the statement before zeroed
            self.steps.append(step)
            self.zeroed.difference_update(step.writes)
        elif not isinstance(node, ast.Pass):
            raise self.error(node, f"unsupported statement in an operator: {type(node).__name__}")
        return None

    def whole_array(self, node: ast.stmt, target: ast.Subscript, value: Any) -> None:
        """`out[:] = expr` (or `out[...] = expr`, or a part of out: `out[i, :] = expr`): every element of the
        target from the same position of each array, numpy's broadcasting applied. An omitted output not yet
        resized takes the expression's shape."""
        whole = self.eval(target.value)
        views = (ArrayView, SlicedView, Elementwise)
        if isinstance(whole, ArrayView) and whole.param.shape is None and isinstance(value, views):
            arrays = value.arrays() if isinstance(value, Elementwise) else [value]
            if arrays:
                shapes = [a.shape for a in arrays]
                try:
                    whole.resize(np.broadcast_shapes(*shapes))
                except ValueError:
                    raise self.error(node, f"the shapes {', '.join(map(str, shapes))} do not broadcast together "
                                     "(numpy's rule: equal, or 1, axis by axis from the last)") from None  # fmt: skip
        view = self.eval(target)
        if not isinstance(view, (ArrayView, SlicedView)):
            raise self.error(target, f"assign whole arrays as `{ast.unparse(target.value)}[:] = ...` (or a slice, "
                             f"`{ast.unparse(target.value)}[i, :]`); element assignments belong in a loop")  # fmt: skip
        if isinstance(view, ArrayView) and not view.identity:
            raise self.error(target, f"cannot assign to the transposed view {view}")
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            value = Elementwise("fill", (float(value),))
        if not isinstance(value, views):
            raise self.error(node, f"`{ast.unparse(target)} = ...` needs a number or a whole-array expression, "
                             f"got {type(value).__name__}")  # fmt: skip
        if not isinstance(value, Elementwise):
            value = Elementwise("copy", (value,))
        for array in value.arrays():
            try:
                broadcast = np.broadcast_shapes(array.shape, view.shape)
            except ValueError:
                broadcast = None
            if broadcast != view.shape:
                raise self.error(node, f"{_name(array)} has shape {array.shape}, which does not broadcast to "
                                 f"{_name(view)}'s {view.shape}")  # fmt: skip
        location = self.source.location(node)
        partial = isinstance(view, SlicedView)
        self.steps.append(ElementwiseStep(view.param, value, location, view if partial else None))
        if value.op == "fill" and value.args[0] == 0.0 and not partial:
            self.zeroed.add(view.param.name)
        else:
            self.zeroed.discard(view.param.name)


def _name(view: Any) -> str:
    return f"'{view.param.name}'" if isinstance(view, ArrayView) and view.identity else f"'{view!r}'"


def _zero_fill_of(step: Any, target: Any) -> bool:
    return (
        isinstance(step, ElementwiseStep)
        and step.target is target
        and step.part is None
        and step.expr.op == "fill"
        and step.expr.args[0] == 0.0
    )


_AUG = {ast.Add: "add", ast.Sub: "sub", ast.Mult: "mul", ast.Div: "div"}


def _pos(node: ast.AST) -> dict[str, int]:
    return {k: getattr(node, k) for k in ("lineno", "col_offset", "end_lineno", "end_col_offset")}
