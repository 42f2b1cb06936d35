"""A loop nest of an operator body, and what it becomes.

The nest is walked once with its counters as affine expressions (symbols.Affine). Two shapes of nest
are recognised, whatever the operator is called:

* a contraction: out[free] (+)= sum over the other counters of a[...] * b[...], under range guards
  (matmul, convolution): the operands are gathered into matrices, multiplied on the cube, and the
  product is scattered into out;
* a window reduction: out[free] = max (or sum) of one array over the other counters, under range
  guards (max pooling): the windows are gathered into rows and reduced on the vector unit.

Any other nest compiles, statement for statement, to scalar code (scalar_nest.py), with a warning."""

from __future__ import annotations

import ast
import warnings
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Optional

from .conv import ConvStep
from .errors import NotRecognised, SlowLoopWarning
from .steps import ContractionStep, ScalarNestStep, Step, WindowReduceStep
from .symbols import Affine, ArrayView, Counter, Load, Product, Range

if TYPE_CHECKING:
    from .trace import Tracer


@dataclass
class Accumulator:
    name: str
    init: float
    enclosing: list[Counter]  # the loops around its initialisation
    op: Optional[str] = None  # "add" or "max", from its update
    value: Any = None  # Load or Product
    inner: list[Counter] = field(default_factory=list)  # the loops between initialisation and update
    guards: list[Range] = field(default_factory=list)  # the conditions around the update


@dataclass
class Store:
    view: ArrayView
    index: tuple[Affine, ...]
    accumulate: bool
    acc: Accumulator
    enclosing: list[Counter]
    guarded: bool


class _Walker:
    def __init__(self, tracer: Tracer):
        self.tracer = tracer
        self.env = dict(tracer.env)
        self.loops: list[Counter] = []
        self.guards: list[Range] = []
        self.stores: list[Store] = []

    def eval(self, node: ast.expr) -> Any:
        try:
            return self.tracer.eval(node, self.env)
        except Exception as e:  # noqa: BLE001 - any failure means: not a recognised shape
            raise NotRecognised(str(e)) from None

    def block(self, body: list[ast.stmt]) -> None:
        for node in body:
            self.statement(node)

    def statement(self, node: ast.stmt) -> None:
        if isinstance(node, ast.For):
            self.loop(node)
        elif isinstance(node, ast.Assign) and len(node.targets) == 1:
            self.assign(node.targets[0], node.value, accumulate=False)
        elif isinstance(node, ast.AugAssign) and isinstance(node.op, ast.Add):
            self.assign(node.target, node.value, accumulate=True)
        elif isinstance(node, ast.If) and not node.orelse:
            added = self.condition(node.test)
            self.guards.extend(added)
            self.block(node.body)
            del self.guards[len(self.guards) - len(added) :]
        else:
            raise NotRecognised(f"statement {type(node).__name__}")

    def loop(self, node: ast.For) -> None:
        call = node.iter
        if node.orelse or not isinstance(node.target, ast.Name):
            raise NotRecognised("loop form")
        if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id == "range"):
            raise NotRecognised("a loop over something other than range()")
        bounds = [self.eval(a) for a in call.args]
        if call.keywords or not 1 <= len(bounds) <= 3 or not all(type(b) is int for b in bounds):
            raise NotRecognised("range bounds that are not known integers")
        span = range(*bounds)
        if len(span) == 0:
            raise NotRecognised("an empty loop")
        counter = Counter(f"j{len(self.loops)}_{node.target.id}", len(span))
        self.loops.append(counter)
        self.env[node.target.id] = Affine.counter(counter.name) * span.step + span.start
        self.block(node.body)
        self.loops.pop()

    def assign(self, target: ast.expr, value_node: ast.expr, accumulate: bool) -> None:
        if isinstance(target, ast.Subscript):
            view = self.eval(target.value)
            acc = self.env.get(value_node.id) if isinstance(value_node, ast.Name) else None
            if not isinstance(view, ArrayView) or not isinstance(acc, Accumulator):
                raise NotRecognised("an element store of something other than an accumulator")
            load = self.eval(target)
            if not isinstance(load, Load):
                raise NotRecognised("a store that is not to one element")
            self.stores.append(Store(view, load.index, accumulate, acc, list(self.loops), bool(self.guards)))
            return
        if not isinstance(target, ast.Name):
            raise NotRecognised("assignment target")
        current = self.env.get(target.id)
        if accumulate:  # s += term
            self.update(current, "add", self.eval(value_node))
            return
        if (
            isinstance(current, Accumulator)
            and isinstance(value_node, ast.BinOp)
            and isinstance(value_node.op, ast.Add)
        ):
            sides = [value_node.left, value_node.right]  # s = s + term, or s = term + s
            names = [x.id if isinstance(x, ast.Name) else None for x in sides]
            if target.id in names:
                self.update(current, "add", self.eval(sides[1 - names.index(target.id)]))
                return
        if (  # m = max(m, term) or max(term, m)
            isinstance(current, Accumulator)
            and isinstance(value_node, ast.Call)
            and isinstance(value_node.func, ast.Name)
            and value_node.func.id == "max"
            and len(value_node.args) == 2
            and not value_node.keywords
        ):
            names = [a.id if isinstance(a, ast.Name) else None for a in value_node.args]
            if target.id in names:
                other = value_node.args[1 - names.index(target.id)]
                self.update(current, "max", self.eval(other))
                return
        value = self.eval(value_node)
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            self.env[target.id] = Accumulator(target.id, float(value), list(self.loops))
        elif isinstance(value, Affine):
            self.env[target.id] = value
        else:
            raise NotRecognised(f"a local holding {type(value).__name__}")

    def update(self, acc: Any, op: str, term: Any) -> None:
        if not isinstance(acc, Accumulator) or acc.op is not None:
            raise NotRecognised("an accumulator updated in more than one place")
        if not isinstance(term, (Load, Product)):
            raise NotRecognised("an accumulated term other than a load or a product of two loads")
        acc.op, acc.value, acc.guards = op, term, list(self.guards)
        acc.inner = self.loops[len(acc.enclosing) :]

    def condition(self, test: ast.expr) -> list[Range]:
        parts = test.values if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And) else [test]
        out: list[Range] = []
        for part in parts:
            if not isinstance(part, ast.Compare):
                raise NotRecognised("a condition other than comparisons joined by `and`")
            operands = [self.eval(x) for x in [part.left, *part.comparators]]
            for op, left, right in zip(part.ops, operands, operands[1:]):
                out.append(_range(op, left, right))
        return out


def _range(op: ast.cmpop, left: Any, right: Any) -> Range:
    """left op right as a Range on one affine expression."""
    if not all(isinstance(v, (int, Affine)) and not isinstance(v, bool) for v in (left, right)):
        raise NotRecognised("a comparison of non-integers")
    expr = Affine.const(0) + left - right  # expr op 0
    if isinstance(op, ast.Lt):
        return Range(expr, hi=0)
    if isinstance(op, ast.LtE):
        return Range(expr, hi=1)
    if isinstance(op, ast.Gt):
        return Range(expr, lo=1)
    if isinstance(op, ast.GtE):
        return Range(expr, lo=0)
    raise NotRecognised(f"comparison {type(op).__name__}")


def recognise(node: ast.For, tracer: Tracer) -> tuple[str, dict[str, Any]]:
    """("contraction" | "window", the step's fields), or NotRecognised."""
    walker = _Walker(tracer)
    walker.loop(node)
    if len(walker.stores) != 1:
        raise NotRecognised("a nest that stores in more than one place")
    store = walker.stores[0]
    acc = store.acc
    enclosing = {c.name: c for c in store.enclosing}
    same_level = [c.name for c in acc.enclosing] == list(enclosing)
    if acc.op is None or not same_level or store.guarded:
        raise NotRecognised("an accumulator not set, updated and stored by the same loop level")
    free: list[Counter] = []
    for index in store.index:
        coeffs = index.coeffs
        if index.offset or len(coeffs) != 1 or next(iter(coeffs.values())) != 1:
            raise NotRecognised("an output index that is not a loop counter")
        free.append(enclosing[next(iter(coeffs))])
    if len({c.name for c in free}) != len(free):
        raise NotRecognised("an output index repeating a counter")
    outer_reduce = [c for c in enclosing.values() if all(c is not f for f in free)]
    if outer_reduce and not (store.accumulate and acc.op == "add" and acc.init == 0.0):
        raise NotRecognised("an output written again by an enclosing loop that is not in its index")
    if acc.op == "add" and acc.init != 0.0:
        raise NotRecognised("a sum that starts from a number other than 0")
    fields = dict(
        out=store.view,
        out_index=store.index,
        free=free,
        reduce=outer_reduce + acc.inner,
        guards=acc.guards,
        accumulate=store.accumulate and store.view.param.name not in tracer.zeroed,
    )
    loads = acc.value.loads if isinstance(acc.value, Product) else (acc.value,)
    if any(load.view.param is store.view.param for load in loads):
        raise NotRecognised("an output that the nest also reads")  # its reads would see the nest's own writes
    if isinstance(acc.value, Product):
        if acc.op != "add":
            raise NotRecognised("a max of products")
        return "contraction", dict(fields, a=acc.value.loads[0], b=acc.value.loads[1])
    if store.accumulate and acc.op == "max":
        raise NotRecognised("a max added to the output")
    return "window", dict(fields, op=acc.op, init=acc.init, load=acc.value)


def compile_nest(node: ast.For, tracer: Tracer) -> Step:
    location = tracer.source.location(node)
    try:
        if not tracer.recognise:
            raise NotRecognised("opt_level 1 compiles loops as written")
        kind, fields = recognise(node, tracer)
        if kind == "contraction":
            try:  # a convolution takes the cube's img2col path; anything else the gathers and a matmul
                return ConvStep.build(location=location, **fields)
            except NotRecognised:
                return ContractionStep.build(location=location, **fields)
        return WindowReduceStep.build(location=location, **fields)
    except NotRecognised as why:
        step = ScalarNestStep.build(node, tracer, location)
        warnings.warn_explicit(
            f"this loop nest compiles to scalar code, one element at a time, and will be slow ({why})",
            SlowLoopWarning,
            location[0],
            location[1],
        )
        return step
