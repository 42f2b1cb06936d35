"""Turns the AST of an @asc.jit function into IR through the C ABI builder.

Python values that are known while compiling (ints, dtypes, enums, ConstExpr
parameters, module constants) are evaluated in Python; everything else is an
IRObject (a run-time scalar, address or tensor) and becomes IR ops. `for` over
range() and `if` on a run-time condition become structured regions. A name
bound before a region and re-bound inside it becomes a mutable `var`.
"""

from __future__ import annotations

import ast
import builtins
import contextlib
import operator
import types
from typing import Any, Callable, Iterator

from ..errors import CodegenError, UnsupportedSyntaxError
from ..language.core import dtype as dt
from ..language.core.ir_value import IRObject, Scalar, is_runtime, logical_not, minmax, to_bool, to_int, to_scalar
from ..language.core.ir_value import cast as scalar_cast
from ..language.core.loops import range as asc_range
from ..language.core.loops import static_range
from ..language.core.struct import Struct
from ..language.core.tensor import GlobalTensor, LocalTensor
from . import regions
from .function import Function
from .hints import did_you_mean, snake_case
from .ir_builder import IRBuilder
from .source import FunctionSource, library_module, refusal

_BIN_OPS: dict[type, Callable[[Any, Any], Any]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.Div: operator.truediv,
    ast.BitAnd: operator.and_,
    ast.BitOr: operator.or_,
    ast.BitXor: operator.xor,
    ast.LShift: operator.lshift,
    ast.RShift: operator.rshift,
    ast.Pow: operator.pow,
    ast.MatMult: operator.matmul,  # asc2 tiles (Tile.__matmul__)
}
_CMP_OPS: dict[type, Callable[[Any, Any], Any]] = {
    ast.Lt: operator.lt,
    ast.LtE: operator.le,
    ast.Gt: operator.gt,
    ast.GtE: operator.ge,
    ast.Eq: operator.eq,
    ast.NotEq: operator.ne,
    ast.Is: operator.is_,
    ast.IsNot: operator.is_not,
    ast.In: lambda a, b: a in b,
    ast.NotIn: lambda a, b: a not in b,
}
_ALLOWED_BUILTINS = {
    "range", "int", "float", "bool", "len", "min", "max", "abs", "isinstance", "tuple", "list", "print",
    "True", "False", "None", "divmod", "round", "str", "type", "enumerate", "zip", "ValueError", "TypeError",
}  # fmt: skip
_MUTABLE_KINDS = (Scalar, IRObject, bool, int, float)


_ABSENT = object()


def _refused(what: str, why: str) -> str:
    return (
        f"the kernel reads {what} at compile time, {why}; use a tuple (keyed by value) or pass the value as a "
        "ConstExpr argument"
    )


def _user_namespace(base: Any) -> bool:
    """A module or class of the user's (library ones do not change between launches)."""
    if isinstance(base, types.ModuleType):
        name = base.__name__
    elif isinstance(base, type):
        name = base.__module__ or ""
    else:
        return False
    return not library_module(name)


class _Return(Exception):
    def __init__(self, value: Any):
        self.value = value


# tensor methods that give the tensor a new IR value: inside a loop or run-time if, its name becomes a variable
_REBINDING_METHODS = {"set_size", "set_buffer_len", "set_addr_with_offset"}


def _assigned_names(stmts: list[ast.stmt]) -> list[str]:
    names: list[str] = []
    for stmt in stmts:
        for node in ast.walk(stmt):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store) and node.id not in names:
                names.append(node.id)
            func = node.func if isinstance(node, ast.Call) else None
            if isinstance(func, ast.Attribute) and func.attr in _REBINDING_METHODS and isinstance(func.value, ast.Name):
                if func.value.id not in names:
                    names.append(func.value.id)
    return names


class FunctionVisitor(ast.NodeVisitor):
    def __init__(self, builder: IRBuilder, source: FunctionSource, scope: dict[str, Any]):
        self.builder = builder
        self.source = source
        self.scope = scope
        self.region_depth = 0
        self.dead: dict[str, int] = {}  # names local to an ended region -> line

    # -- driving ------------------------------------------------------------
    def run_body(self) -> Any:
        try:
            for stmt in self.source.tree.body:
                self.visit(stmt)
        except _Return as r:
            return r.value
        return None

    def loc_of(self, node: ast.AST) -> tuple[str, int, int]:
        return self.source.location(node)

    def visit(self, node: ast.AST) -> Any:
        if not hasattr(node, "lineno"):
            return super().visit(node)
        saved = self.builder.loc
        if not getattr(self.builder, "loc_pinned", 0):  # an adv expansion keeps the user's line
            self.builder.loc = self.loc_of(node)
        try:
            return super().visit(node)
        except CodegenError as e:
            if e.file:
                raise
            raise type(e)(e.message, *self.builder.loc) from None  # raised by an asc function: add the line
        except _Return:
            raise
        except RecursionError:
            raise
        except Exception as e:  # a Python error while evaluating user code: point at the line
            raise CodegenError(f"{type(e).__name__}: {e}", *self.builder.loc) from None
        finally:
            self.builder.loc = saved

    def end_line(self, node: ast.stmt) -> int:
        return (getattr(node, "end_lineno", None) or node.lineno) + self.source.line_offset

    def error(self, node: ast.AST, message: str, cls: type[CodegenError] = CodegenError) -> CodegenError:
        return cls(message, *self.loc_of(node))

    def generic_visit(self, node: ast.AST) -> Any:
        raise self.error(node, f"{type(node).__name__} is not supported inside a kernel", UnsupportedSyntaxError)

    # -- names ------------------------------------------------------------------
    def lookup(self, name: str, node: ast.AST) -> Any:
        if name in self.scope:
            return self.scope[name]
        if name in self.dead:
            raise self.error(
                node,
                f"'{name}' is assigned only inside the loop or run-time if that ends at line {self.dead[name]} "
                "and is not visible after it; assign it before that statement",
            )
        found, value = self.source.resolve_global(name)
        if found:
            why = refusal(value)
            if why is not None:
                raise self.error(node, _refused(f"'{name}'", why))
            return value
        if name in _ALLOWED_BUILTINS:
            return getattr(builtins, name)
        raise self.error(node, f"name '{name}' is not defined{did_you_mean(name)}")

    def bind(self, name: str, value: Any, node: ast.AST) -> None:
        current = self.scope.get(name)
        if getattr(current, "_mutable", False):
            self.assign_var(name, current, value, node)
            return
        if getattr(value, "_mutable", False):
            value = self.make_var(value)  # `y = x` copies a mutable variable
        self.scope[name] = value

    # Values other than scalars and IR objects (asc2 tiles) take part by implementing __asc_var__ (a mutable
    # copy) and __asc_assign__ (storing a new value into it).
    def make_var(self, value: Any) -> Any:
        if hasattr(value, "__asc_var__"):
            var = value.__asc_var__()
            var._mutable = True  # what bind() recognises: assignments to the name go to __asc_assign__
            return var
        obj = to_scalar(value) if not isinstance(value, IRObject) else value
        var = obj._with_handle(self.builder.op("var", [obj.handle]))
        var._mutable = True
        return var

    def assign_var(self, name: str, var: Any, value: Any, node: ast.AST) -> None:
        if hasattr(var, "__asc_assign__"):
            return var.__asc_assign__(name, value)
        if isinstance(var, Scalar):
            new = to_scalar(value, var.dtype) if not isinstance(value, Scalar) else scalar_cast(value, var.dtype)
        elif type(value) is type(var):
            new = value
        else:
            raise self.error(node, f"'{name}' holds a {type(var).__name__}; it cannot be re-bound to {value!r} here")
        self.builder.op("assign", [var.handle, new.handle])

    def prepare_region(self, stmts: list[ast.stmt]) -> None:
        """Names bound before a region and assigned inside it become mutable vars."""
        for name in _assigned_names(stmts):
            value = self.scope.get(name)
            if value is None or getattr(value, "_mutable", False):
                continue
            if isinstance(value, (GlobalTensor, LocalTensor)) and value.handle is None:  # declared, no memory
                continue
            if isinstance(value, _MUTABLE_KINDS) or hasattr(value, "__asc_var__"):
                self.scope[name] = self.make_var(value)

    def close_region(self, before: set[str], end_line: int) -> None:
        for name in [n for n in self.scope if n not in before]:
            del self.scope[name]
            self.dead[name] = end_line

    # -- statements ------------------------------------------------------------------
    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        raise self.error(node, "nested function definitions are not supported in kernels; use @asc.jit functions")

    def visit_Expr(self, node: ast.Expr) -> None:
        if isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            return  # docstring
        self.visit(node.value)

    def visit_Pass(self, node: ast.Pass) -> None:
        return None

    def visit_Assign(self, node: ast.Assign) -> None:
        if len(node.targets) != 1:
            raise self.error(node, "chained assignment (a = b = ...) is not supported in kernels")
        target = node.targets[0]
        self.builder.pending_name = target.id if isinstance(target, ast.Name) else None
        try:
            value = self.visit(node.value)
        finally:
            self.builder.pending_name = None
        self.assign_target(target, value)

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        if node.value is None:
            return
        self.assign_target(node.target, self.visit(node.value))

    def assign_target(self, target: ast.expr, value: Any) -> None:
        if isinstance(target, ast.Name):
            self.bind(target.id, value, target)
        elif isinstance(target, (ast.Tuple, ast.List)):
            if not isinstance(value, (tuple, list)) or len(value) != len(target.elts):
                raise self.error(target, "tuple assignment needs a tuple of the same length on the right")
            for t, v in zip(target.elts, value):
                self.assign_target(t, v)
        elif isinstance(target, ast.Subscript):
            raise self.error(target, "element assignment t[i] = v (set_value) is not supported yet")
        elif isinstance(target, ast.Attribute) and isinstance(base := self.visit(target.value), Struct):
            base.assign_in_kernel(target.attr, value, self.builder)
        else:
            raise self.error(target, f"cannot assign to {type(target).__name__} in a kernel", UnsupportedSyntaxError)

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        if not isinstance(node.target, ast.Name):
            raise self.error(node, "augmented assignment needs a plain name on the left")
        op = _BIN_OPS.get(type(node.op))
        if op is None:
            raise self.error(node, f"operator {type(node.op).__name__} is not supported", UnsupportedSyntaxError)
        current = self.lookup(node.target.id, node.target)
        self.bind(node.target.id, op(current, self.visit(node.value)), node.target)

    def visit_Return(self, node: ast.Return) -> None:
        if self.region_depth:
            raise self.error(node, "return inside a loop or run-time if is not supported; return at the end")
        raise _Return(None if node.value is None else self.visit(node.value))

    def visit_Assert(self, node: ast.Assert) -> None:
        test = self.visit(node.test)
        if is_runtime(test):
            raise self.error(node, "assert needs a compile-time condition")
        if not test:
            msg = self.assert_message(node.msg) if node.msg is not None else "assertion failed"
            raise self.error(node, f"AssertionError: {msg}")

    def assert_message(self, node: ast.expr) -> str:
        """The message of an assert that fails at compile time. An f-string's run-time values are known only
        when the kernel runs: they are shown as written, in braces, and named."""
        if not isinstance(node, ast.JoinedStr):
            return str(self.visit(node))
        text, later = [], []
        for part in node.values:
            value = self.visit(part)
            if is_runtime(value) and isinstance(part, ast.FormattedValue):
                source = ast.unparse(part.value)
                text.append("{" + source + "}")
                later.append(source)
            else:
                text.append(str(value))
        known_later = f" ({', '.join(later)}: known only at run time)" if later else ""
        return "".join(text) + known_later

    def visit_For(self, node: ast.For) -> None:
        if node.orelse:
            raise self.error(node, "for ... else is not supported in kernels", UnsupportedSyntaxError)
        if not isinstance(node.target, ast.Name):
            raise self.error(node.target, "the loop variable must be a single name")
        call = node.iter
        func = self.visit(call.func) if isinstance(call, ast.Call) else None
        if func is static_range:
            return self.static_loop(node, call)
        if func is not builtins.range and func is not asc_range:
            raise self.error(node.iter, "kernel loops iterate over range(...)", UnsupportedSyntaxError)
        if not 1 <= len(call.args) <= 3:
            raise self.error(call, "range() takes 1 to 3 positional arguments")
        for kw in call.keywords:  # asc2's and asctile's scheduling hints: accepted, and the loop runs as written
            value = self.visit(kw.value)
            if kw.arg in ("parallel", "gm_barrier") and isinstance(value, bool):  # GM is ordered as written anyway
                continue
            if kw.arg == "unroll_factor" and isinstance(value, int) and not isinstance(value, bool) and value > 0:
                continue
            raise self.error(kw, f"range() takes parallel=<bool> and unroll_factor=<positive int> only (and "
                             f"asctile's gm_barrier=<bool>), got {kw.arg}={value!r}")  # fmt: skip
        args = [self.visit(a) for a in call.args]
        lb, ub, step = (0, args[0], 1) if len(args) == 1 else (args[0], args[1], args[2] if len(args) == 3 else 1)
        if not is_runtime(step) and step == 0:
            raise self.error(call, "range() step must not be zero")
        dtypes = [a.dtype for a in (lb, ub, step) if isinstance(a, Scalar)]
        iv_dtype = dt.int32
        for d in dtypes:
            if not d.is_int():
                raise self.error(call, f"range() needs integers, got {d.name}")
            iv_dtype = dt.promote(iv_dtype, d)
        for v in (lb, ub, step):  # a constant bound past int32 makes the loop int64, never a truncated one
            if isinstance(v, int) and not -(2**31) <= v < 2**31:
                if not -(2**63) <= v < 2**63:
                    raise self.error(call, f"range() bound {v} does not fit in int64")
                iv_dtype = dt.promote(iv_dtype, dt.int64)
        self.range_loop(node, node.target.id, (lb, ub, step), iv_dtype, node.body)

    def static_loop(self, node: ast.For, call: ast.Call) -> None:
        """``for i in asc.static_range(...)``: the body built once per value, `i` a Python int (unrolled)."""
        if call.keywords:
            raise self.error(call, "static_range() takes no keywords")
        args = [self.visit(a) for a in call.args]
        if not 1 <= len(args) <= 3:
            raise self.error(call, "static_range() takes 1 to 3 arguments")
        for a in args:
            if is_runtime(a) or not isinstance(a, int) or isinstance(a, bool):
                raise self.error(call, f"static_range() bounds must be compile-time integers, got {a!r}")
        if len(args) == 3 and args[2] == 0:
            raise self.error(call, "static_range() step must not be zero")
        name = node.target.id  # type: ignore[attr-defined]
        for value in builtins.range(*args):
            self.scope[name] = value
            for stmt in node.body:
                if isinstance(stmt, (ast.Break, ast.Continue)):
                    raise self.error(stmt, "break / continue are not supported in a static_range loop")
                self.visit(stmt)

    @contextlib.contextmanager
    def nested_region(self) -> Iterator[None]:
        """The body of a run-time loop or if (opened with asc.codegen.regions): counted in region_depth."""
        self.region_depth += 1
        try:
            yield
        finally:
            self.region_depth -= 1

    def range_loop(self, node: ast.AST, name: str, bounds_in: tuple, iv_dtype: Any, body: list,
                   prologue: Callable[[Scalar], None] | None = None) -> None:  # fmt: skip
        """A `for name in range(lb, ub, step)` region over `body`; `prologue(iv)` runs first in each iteration."""
        bounds = [to_int(v, "a range() bound") for v in bounds_in]
        bounds = [scalar_cast(b, iv_dtype) for b in bounds]
        self.prepare_region(body)
        before = set(self.scope)
        with regions.for_range(*bounds, iv_dtype) as iv, self.nested_region():
            self.scope[name] = iv
            if prologue is not None:
                prologue(iv)
            for stmt in body:
                self.visit(stmt)
        end = self.end_line(node)
        self.close_region(before | {name}, end)
        self.scope.pop(name, None)
        self.dead[name] = end

    def visit_With(self, node: ast.With) -> None:
        """``with matmul.iterate() as count:`` — a loop the context object drives (``__asc_loop__`` gives the
        iteration count and what each iteration does before the body)."""
        if len(node.items) != 1:
            raise self.error(node, "with takes one context in kernels", UnsupportedSyntaxError)
        item = node.items[0]
        ctx = self.visit(item.context_expr)
        region = getattr(ctx, "__asc_region__", None)
        if region is not None:  # a region the context object ends (asc2.mask): the body once, then its end
            if item.optional_vars is not None:
                raise self.error(item.optional_vars, "this with takes no 'as' name")
            try:
                for stmt in node.body:
                    self.visit(stmt)
            except BaseException:
                region(completed=False)
                raise
            region(completed=True)
            return
        loop = getattr(ctx, "__asc_loop__", None)
        if loop is None:
            raise self.error(node, "with ... is supported for Matmul.iterate() only", UnsupportedSyntaxError)
        if item.optional_vars is not None and not isinstance(item.optional_vars, ast.Name):
            raise self.error(item.optional_vars, "with ... as takes a single name")
        name = item.optional_vars.id if item.optional_vars is not None else f"_with_{node.lineno}"
        iterations, prologue = loop()
        self.range_loop(node, name, (0, iterations, 1), dt.int32, node.body, prologue)
        end = getattr(ctx, "__asc_loop_end__", None)  # what the loop's values stop meaning after it
        if end is not None:
            end()

    def visit_If(self, node: ast.If) -> None:
        test = self.visit(node.test)
        if not is_runtime(test):
            for stmt in node.body if test else node.orelse:
                self.visit(stmt)
            return
        cond = to_bool(test)
        self.prepare_region(node.body + node.orelse)
        before = set(self.scope)
        with regions.if_(cond) as branch, self.nested_region():
            for stmt in node.body:
                self.visit(stmt)
            self.close_region(before, self.loc_of(node)[1])
            if node.orelse:
                branch.else_()
                for stmt in node.orelse:
                    self.visit(stmt)
        self.close_region(before, self.end_line(node))

    def visit_While(self, node: ast.While) -> None:
        raise self.error(node, "while loops are not supported in kernels; use for ... in range(...)",
                         UnsupportedSyntaxError)  # fmt: skip

    def visit_Break(self, node: ast.Break) -> None:
        raise self.error(node, "break is not supported in kernels", UnsupportedSyntaxError)

    def visit_Continue(self, node: ast.Continue) -> None:
        raise self.error(node, "continue is not supported in kernels", UnsupportedSyntaxError)

    # -- expressions -------------------------------------------------------------------------
    def visit_Constant(self, node: ast.Constant) -> Any:
        return node.value

    def visit_Name(self, node: ast.Name) -> Any:
        return self.lookup(node.id, node)

    def visit_Tuple(self, node: ast.Tuple) -> tuple:
        return tuple(self.visit(e) for e in node.elts)

    def visit_List(self, node: ast.List) -> list:
        return [self.visit(e) for e in node.elts]

    def visit_Attribute(self, node: ast.Attribute) -> Any:
        base = self.visit(node.value)
        try:
            value = getattr(base, node.attr)
        except AttributeError:
            value = _ABSENT
        if value is not _ABSENT:
            if _user_namespace(base):  # module.NAME, Class.NAME: read at compile time
                why = refusal(value)
                if why is not None:
                    owner = getattr(base, "__name__", "?")
                    raise self.error(node, _refused(f"'{owner}.{node.attr}'", why))
            elif self._from_outside(node.value):  # OBJECT.attr of an object the kernel did not make
                why = refusal(base, attributes=True)
                if why is not None:
                    raise self.error(node, _refused(f"'{ast.unparse(node)}'", why))
            return value
        owner = getattr(base, "__name__", type(base).__name__)
        hint = did_you_mean(node.attr)
        if not hint and snake_case(node.attr) != node.attr and hasattr(base, snake_case(node.attr)):
            hint = f"; did you mean {owner}.{snake_case(node.attr)}?"
        raise self.error(node, f"{owner} has no attribute '{node.attr}'{hint}")

    def _from_outside(self, node: ast.expr) -> bool:
        """Whether `node` names something from the kernel's module or closure (NAME, module.NAME)."""
        if isinstance(node, ast.Attribute):
            node = node.value
        return isinstance(node, ast.Name) and node.id not in self.scope

    def hooked(self, func: Any, args: list, kwargs: dict) -> Any:
        """func(*args, **kwargs), or what the builder's tile_call_hook makes of it (asctile's cv_strategy,
        asc2.halves: operations on tiles split over the vector sub-blocks)."""
        hook = getattr(self.builder, "tile_call_hook", None)
        if hook is not None:
            result = hook(func, args, kwargs)
            if result is not NotImplemented:
                return result
        return func(*args, **kwargs)

    def visit_BinOp(self, node: ast.BinOp) -> Any:
        op = _BIN_OPS.get(type(node.op))
        left, right = self.visit(node.left), self.visit(node.right)
        if op is None or (op is operator.pow and (is_runtime(left) or is_runtime(right))):
            raise self.error(node, f"operator {type(node.op).__name__} is not supported on run-time values")
        return self.hooked(op, [left, right], {})

    def visit_UnaryOp(self, node: ast.UnaryOp) -> Any:
        value = self.visit(node.operand)
        if isinstance(node.op, ast.Not):
            return logical_not(value) if is_runtime(value) else not value
        ops = {ast.USub: operator.neg, ast.UAdd: operator.pos, ast.Invert: operator.invert}
        return self.hooked(ops[type(node.op)], [value], {})

    def visit_Compare(self, node: ast.Compare) -> Any:
        left = self.visit(node.left)
        result: Any = True
        for op_node, right_node in zip(node.ops, node.comparators):
            right = self.visit(right_node)
            if (is_runtime(left) or is_runtime(right)) and isinstance(op_node, (ast.Is, ast.IsNot, ast.In, ast.NotIn)):
                raise self.error(node, f"{type(op_node).__name__} needs compile-time values")
            part = self.hooked(_CMP_OPS[type(op_node)], [left, right], {})
            result = part if result is True else self.logical_and(result, part)
            left = right
        return result

    def logical_and(self, a: Any, b: Any) -> Any:
        if not is_runtime(a) and not is_runtime(b):
            return a and b
        return to_bool(a) & to_bool(b)

    def visit_BoolOp(self, node: ast.BoolOp) -> Any:
        is_and = isinstance(node.op, ast.And)
        result = self.visit(node.values[0])
        for value_node in node.values[1:]:
            if not is_runtime(result):  # Python short-circuit on compile-time values
                if (is_and and not result) or (not is_and and result):
                    return result
                result = self.visit(value_node)
                continue
            right = self.visit(value_node)
            result = to_bool(result) & to_bool(right) if is_and else to_bool(result) | to_bool(right)
        return result

    def visit_IfExp(self, node: ast.IfExp) -> Any:
        test = self.visit(node.test)
        if is_runtime(test):
            raise self.error(node, "a conditional expression needs a compile-time condition; use an if statement")
        return self.visit(node.body if test else node.orelse)

    def visit_Subscript(self, node: ast.Subscript) -> Any:
        value = self.visit(node.value)
        index = self.visit(node.slice)
        return value[index]

    def visit_Slice(self, node: ast.Slice) -> slice:
        parts = [None if n is None else self.visit(n) for n in (node.lower, node.upper, node.step)]
        return slice(*parts)

    def visit_Index(self, node: Any) -> Any:  # Python 3.8 compatibility
        return self.visit(node.value)

    def visit_JoinedStr(self, node: ast.JoinedStr) -> str:
        parts = [self.visit(v) for v in node.values]
        if any(is_runtime(p) for p in parts):
            raise self.error(node, "f-strings need compile-time values")
        return "".join(str(p) for p in parts)

    def visit_FormattedValue(self, node: ast.FormattedValue) -> Any:
        return self.visit(node.value)

    def visit_Call(self, node: ast.Call) -> Any:
        func = self.visit(node.func)
        args, kwargs = [], {}
        for a in node.args:
            if isinstance(a, ast.Starred):
                args.extend(self.visit(a.value))
            else:
                args.append(self.visit(a))
        for kw in node.keywords:
            if kw.arg is None:
                kwargs.update(self.visit(kw.value))
            else:
                kwargs[kw.arg] = self.visit(kw.value)
        runtime_args = any(is_runtime(v) for v in [*args, *kwargs.values()])
        if func is builtins.range or func is asc_range or func is static_range:
            raise self.error(node, "range() can only be used as the iterable of a for loop")
        if isinstance(func, Function):  # a device function (an @asc.jit one): compiled into this kernel
            return func.inline(self.builder, args, kwargs, self.loc_of(node))
        if getattr(func, "__asc_builtin__", False):
            return self.hooked(func, args, kwargs)
        if func in (GlobalTensor, LocalTensor):
            return func(*args, **kwargs)
        if isinstance(func, (GlobalTensor, LocalTensor)):
            return func(*args, **kwargs)  # t(i): the element (Ascend C's operator())
        if isinstance(getattr(func, "__self__", None), (IRObject, dt.DataType)):
            return func(*args, **kwargs)  # a method of a kernel value (x_gm.set_global_buffer, dtype.sizeof)
        if runtime_args:
            return self.call_with_runtime_args(node, func, args, kwargs)
        return func(*args, **kwargs)  # evaluated while compiling

    def call_with_runtime_args(self, node: ast.Call, func: Any, args: list, kwargs: dict) -> Any:
        if kwargs:
            raise self.error(node, f"{getattr(func, '__name__', func)}() takes no keywords on run-time values")
        if func in (builtins.int, builtins.float, builtins.bool) and len(args) == 1:
            target = {builtins.int: dt.int32, builtins.float: dt.float32, builtins.bool: dt.bool_}[func]
            value = args[0]
            if func is builtins.bool:
                return to_bool(value)
            if isinstance(value, Scalar) and func is builtins.int and value.dtype.is_int():
                return value
            return scalar_cast(to_scalar(value), target)
        if func in (builtins.min, builtins.max) and len(args) >= 2:
            return minmax(func.__name__, list(args))
        if func is builtins.abs and len(args) == 1:
            value = to_scalar(args[0])
            return minmax("max", [value, -value])
        if func is builtins.print:  # pyasc's words first (its tests match them)
            raise self.error(node, "NameError: print is not defined in a kernel for run-time values; use "
                             "asc.printf(format, ...), the device's printf")  # fmt: skip
        name = getattr(func, "__name__", repr(func))
        raise self.error(
            node,
            f"{name}() is a plain Python function and cannot take run-time values inside a kernel; "
            "decorate it with @asc.jit to make it a device function" + did_you_mean(name),
        )
