"""A loop nest that is not recognised, as an asc kernel doing what the Python does, statement for
statement: array elements become GM get_value/set_value at the linear index, every value that does not
change inside the nest (shapes, attributes, np.inf) becomes a constant. One core runs it: the nest's
iterations may depend on each other."""

from __future__ import annotations

import ast
import copy
from typing import TYPE_CHECKING, Any

from .errors import OperatorError
from .generated import HEADER, literal
from .symbols import ArrayView, Load, Param

if TYPE_CHECKING:
    from .trace import Tracer

_CALLS = {"max", "min", "abs"}  # builtins a kernel has over scalars


def _locals(node: ast.For) -> set[str]:
    names: set[str] = set()
    for sub in ast.walk(node):
        if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Store):
            names.add(sub.id)
    return names


def _names(node: ast.AST) -> set[str]:
    return {sub.id for sub in ast.walk(node) if isinstance(sub, ast.Name)}


class _Rewriter(ast.NodeTransformer):
    def __init__(self, tracer: Tracer, local: set[str]):
        self.tracer = tracer
        self.local = local
        self.params: list[Param] = []
        self.float_locals: set[str] = set()

    def error(self, node: ast.AST, message: str) -> OperatorError:
        return self.tracer.error(node, message)

    def gm(self, param: Param) -> str:
        if all(param is not p for p in self.params):
            self.params.append(param)
        return f"_g{[id(p) for p in self.params].index(id(param))}"

    def constant(self, node: ast.expr) -> Any:
        """node's value when it uses no local of the nest, else None."""
        if _names(node) & self.local:
            return None
        return self.tracer.eval(node)

    def visit_expr(self, node: ast.expr) -> ast.expr:
        value = self.constant(node)
        if isinstance(node, ast.Subscript) and (value is None or isinstance(value, Load)):
            return self.visit_Subscript(node)  # an array element
        if value is None:
            if isinstance(node, ast.Call):
                return self.call(node)
            return self.generic_visit(node)  # type: ignore[return-value]
        if isinstance(value, bool) or isinstance(value, (int, float)):
            if isinstance(value, float):
                return ast.copy_location(ast.parse(literal(value), mode="eval").body, node)
            return ast.copy_location(ast.Constant(value), node)
        if isinstance(value, ArrayView):
            raise self.error(node, f"the array '{value.param.name}' is used whole inside a loop; index it "
                             f"element by element")  # fmt: skip
        raise self.error(node, f"{ast.unparse(node)} is a {type(value).__name__}; loops use numbers and array "
                         f"elements")  # fmt: skip

    def call(self, node: ast.Call) -> ast.expr:
        if not (isinstance(node.func, ast.Name) and node.func.id in _CALLS) or node.keywords:
            raise self.error(node, f"{ast.unparse(node.func)}() is not available in loops over array elements "
                             f"(available: {', '.join(sorted(_CALLS))})")  # fmt: skip
        node.args = [self.visit_item(a) for a in node.args]
        return node

    def visit_For(self, node: ast.For) -> ast.For:  # noqa: N802 - ast's name
        if not (
            isinstance(node.iter, ast.Call) and isinstance(node.iter.func, ast.Name) and node.iter.func.id == "range"
        ):
            raise self.error(node.iter, "loops over array elements iterate over range(...)")
        node.iter.args = [self.visit_item(a) for a in node.iter.args]
        node.body = [self.visit(s) for s in node.body]
        if node.orelse:
            raise self.error(node, "for ... else is not supported in operator loops")
        return node

    # every expression kind goes through visit_expr, except those handled below
    def generic_visit(self, node: ast.AST) -> ast.AST:
        for name, value in ast.iter_fields(node):
            if isinstance(value, list):
                setattr(node, name, [self.visit_item(v) for v in value])
            elif isinstance(value, ast.AST):
                setattr(node, name, self.visit_item(value))
        return node

    def visit_item(self, node: Any) -> Any:
        if isinstance(node, ast.expr) and not isinstance(node.ctx if hasattr(node, "ctx") else None, ast.Store):
            if isinstance(node, (ast.Name, ast.Attribute, ast.Call, ast.BinOp, ast.UnaryOp, ast.Compare,
                                 ast.BoolOp, ast.Constant, ast.IfExp, ast.Subscript)):  # fmt: skip
                return self.visit_expr(node)
        return self.visit(node) if isinstance(node, ast.AST) else node

    def element(self, node: ast.Subscript) -> tuple[str, ast.expr]:
        """(the GM tensor's name, the linear index) of an array element."""
        if _names(node.value) & self.local:
            raise self.error(node, f"{ast.unparse(node.value)} is indexed but is not an array parameter")
        view = self.tracer.eval(node.value)
        if not isinstance(view, ArrayView):
            raise self.error(node, f"{ast.unparse(node.value)} is indexed but is not an array parameter")
        index = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        if view.param.shape is None:
            raise self.error(node, f"the shape of '{view.param.name}' is not known yet: call "
                             f"{view.param.name}.resize(shape) before the loop")  # fmt: skip
        if len(index) != view.ndim or any(isinstance(i, ast.Slice) for i in index):
            raise self.error(node, f"'{view.param.name}' ({view.ndim}-d) is indexed by one integer per axis in loops")
        storage = view.storage_index(tuple(self.visit_item(i) for i in index))
        linear: ast.expr = ast.Constant(0)
        for axis, stride in zip(storage, view.param.strides):
            term = axis if stride == 1 else ast.BinOp(axis, ast.Mult(), ast.Constant(stride))
            linear = term if isinstance(linear, ast.Constant) else ast.BinOp(linear, ast.Add(), term)
        return self.gm(view.param), linear

    def visit_Subscript(self, node: ast.Subscript) -> ast.expr:  # noqa: N802 - ast's name
        name, linear = self.element(node)
        call = ast.Call(ast.Attribute(ast.Name(name, ast.Load()), "get_value", ast.Load()), [linear], [])
        return ast.copy_location(call, node)

    def store(self, node: ast.stmt, target: ast.Subscript, value: ast.expr) -> ast.stmt:
        name, linear = self.element(target)
        call = ast.Call(ast.Attribute(ast.Name(name, ast.Load()), "set_value", ast.Load()), [linear, value], [])
        return ast.copy_location(ast.Expr(call), node)

    def visit_Assign(self, node: ast.Assign) -> ast.stmt:  # noqa: N802
        value = self.visit_item(node.value)
        target = node.targets[0]
        if len(node.targets) != 1:
            raise self.error(node, "chained assignment in a loop")
        if isinstance(target, ast.Subscript):
            return self.store(node, target, value)
        if isinstance(target, ast.Name) and target.id in self.float_locals and isinstance(value, ast.Constant):
            value = ast.Constant(float(value.value))  # s = 0 that accumulates floats: a float from the start
        node.value = value
        return node

    def visit_AugAssign(self, node: ast.AugAssign) -> ast.stmt:  # noqa: N802
        value = self.visit_item(node.value)
        if isinstance(node.target, ast.Subscript):
            current = self.visit_Subscript(node.target)
            return self.store(node, node.target, ast.BinOp(current, node.op, value))
        node.value = value
        return node


def _float_locals(nest: ast.For, local: set[str], tracer: Tracer) -> set[str]:
    """Locals that hold floats somewhere: assigned an array element, a float, or another such local."""
    out: set[str] = set()
    changed = True
    while changed:
        changed = False
        for node in ast.walk(nest):
            if isinstance(node, (ast.Assign, ast.AugAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for target in targets:
                    if not isinstance(target, ast.Name) or target.id in out:
                        continue
                    value = node.value
                    floaty = any(isinstance(s, ast.Subscript) for s in ast.walk(value)) or bool(_names(value) & out)
                    floaty = floaty or any(isinstance(s, ast.Constant) and isinstance(s.value, float)
                                           for s in ast.walk(value))  # fmt: skip
                    if not floaty and not (_names(value) & local):
                        try:
                            floaty = isinstance(tracer.eval(value), float)
                        except OperatorError:
                            floaty = False
                    if floaty:
                        out.add(target.id)
                        changed = True
    return out


def source(name: str, node: ast.For, tracer: Tracer, origin: str) -> tuple[str, list[Param]]:
    """The kernel's text and the parameters it takes, in order."""
    local = _locals(node)
    rewriter = _Rewriter(tracer, local)
    rewriter.float_locals = _float_locals(node, local, tracer)
    body = rewriter.visit(copy.deepcopy(node))  # a copy, with the user's lines: their tree stays as it is
    ast.fix_missing_locations(body)
    params = rewriter.params
    pointers = ", ".join(f"_p{i}: asc.GlobalAddress" for i in range(len(params)))
    lines = [HEADER.format(origin=origin), "", "@asc.jit", f"def {name}({pointers}):"]
    for i in range(len(params)):
        lines.append(f"    _g{i} = asc.GlobalTensor()")
        lines.append(f"    _g{i}.set_global_buffer(_p{i})")
    lines.extend("    " + line for line in ast.unparse(body).splitlines())
    return "\n".join(lines) + "\n", params
