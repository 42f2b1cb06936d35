"""@pyasc.operator: a Python function over numpy arrays, compiled for its arguments' shapes, dtypes and
attribute values on first call (trace.py), run as asc kernels. Operators are registered by name, so
`pyasc.compile("Name")` finds them."""

from __future__ import annotations

import inspect
from dataclasses import dataclass
from typing import Any, Callable, Optional, Union

import numpy as np

import asc.lib.runtime as rt
from asc.codegen.source import FunctionSource
from asc.errors import CodegenError, KernelError
from asc.runtime import config

from .elementwise import ASC_DTYPES
from .errors import OperatorError
from .steps import Launch, Step
from .symbols import Param
from .trace import Tracer

DTYPES = (*ASC_DTYPES, np.dtype(np.int8))  # the dtypes kernels compute in (int8: the cube's contractions)
_REGISTRY: dict[str, Operator] = {}


@dataclass
class Plan:
    """One specialisation: the steps, and the shapes of the outputs a call may omit."""

    steps: list[Step]
    params: list[Param]

    def launches(self, arrays: dict[str, np.ndarray]) -> list[Launch]:
        out: list[Launch] = []
        for step in self.steps:
            for launch in step.launches(arrays):
                launch.location = step.location
                out.append(launch)
        return out


class Operator:
    def __init__(self, fn: Callable[..., Any], name: Optional[str] = None):
        self.fn = fn
        self.name = name or fn.__name__
        self.__name__, self.__doc__ = fn.__name__, fn.__doc__
        self.signature = inspect.signature(fn)
        params = list(self.signature.parameters.values())
        self.array_names = [p.name for p in params if p.default is inspect.Parameter.empty]
        self.attr_defaults = {p.name: p.default for p in params if p.default is not inspect.Parameter.empty}
        self._source: Optional[FunctionSource] = None
        self._plans: dict[tuple, Plan] = {}  # by (call, whether nests are recognised)
        self._calls: dict[tuple, tuple[dict, dict]] = {}  # the shapes, dtypes and attributes of each call so far
        self.opt_level = 3  # 1: loop nests compile as written (scalar code); 2, 3: recognised nests use the cube/vector

    def __repr__(self) -> str:
        return f"<pyasc.operator {self.name!r} ({', '.join(self.signature.parameters)})>"

    @property
    def source(self) -> FunctionSource:
        if self._source is None:
            self._source = FunctionSource(self.fn)
        return self._source

    # -- calling ----------------------------------------------------------------------------------------
    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        arrays, attrs, given = self._bind(args, kwargs)
        plan = self.plan(arrays, attrs)
        storage = self._storage(plan, arrays)
        stream = rt.current_stream()
        for launch in plan.launches(storage):
            self._run(launch, stream)
        for name, array in arrays.items():  # a non-contiguous output was computed in a copy
            if array is not None and storage[name] is not array and _written(plan, name):
                array[...] = storage[name]
        outputs = [given[p.name] if given[p.name] is not None else storage[p.name] for p in plan.params
                   if _written(plan, p.name)]  # fmt: skip
        return outputs[0] if len(outputs) == 1 else tuple(outputs) if outputs else None

    def _compile_failed(self, launch: Launch, e: CodegenError) -> OperatorError:
        where = launch.location or (self.source.file, self.source.line, 0)
        return OperatorError(f"operator {self.name!r}: a generated kernel failed to compile: {e.message}", *where)

    def _run(self, launch: Launch, stream: Any) -> None:
        file, line, col = launch.location or (self.source.file, self.source.line, 0)
        try:
            launch.kernel[launch.cores, stream](*launch.args)
        except CodegenError as e:
            raise self._compile_failed(launch, e) from e
        except KernelError as e:  # a fault in the kernel of one statement: point at that statement
            where = f" (the kernel's own line: {e.file}:{e.line})" if e.file else ""
            raise type(e)(f"operator {self.name!r}: {e.message}{where}", file, line, col, e.kernel) from e

    def _bind(self, args: tuple, kwargs: dict) -> tuple[dict[str, Optional[np.ndarray]], dict[str, Any], dict]:
        """(the arrays as numpy arrays, the attributes, the array objects as given)"""
        if len(args) > len(self.array_names):
            raise TypeError(f"{self.name}() takes {len(self.array_names)} arrays ({', '.join(self.array_names)}) "
                            f"positionally, got {len(args)} arguments; pass attributes by keyword")  # fmt: skip
        arrays: dict[str, Optional[np.ndarray]] = dict.fromkeys(self.array_names)
        arrays.update(zip(self.array_names, args))
        attrs = dict(self.attr_defaults)
        for key, value in kwargs.items():
            if key in arrays:
                if arrays[key] is not None:
                    raise TypeError(f"{self.name}() got multiple values for '{key}'")
                arrays[key] = value
            elif key in attrs:
                attrs[key] = value
            else:
                raise TypeError(f"{self.name}() got an unexpected keyword argument '{key}'")
        given = dict(arrays)
        for name, value in given.items():
            if value is not None:
                arrays[name] = self._numpy(name, value)
        return arrays, attrs, given

    def _numpy(self, name: str, value: Any) -> np.ndarray:
        """An argument as a numpy array sharing its memory: ndarrays and pyasc tensors as they are, torch CPU
        tensors through .numpy()."""
        if not isinstance(value, np.ndarray):
            if type(value).__module__.split(".")[0] != "torch":
                raise TypeError(f"{self.name}(): '{name}' must be a numpy array, pyasc tensor or torch CPU tensor, "
                                f"got {type(value).__name__}")  # fmt: skip
            if value.device.type != "cpu":
                raise TypeError(f"{self.name}(): '{name}' is on {value.device}; pass CPU tensors")
            try:
                value = value.detach().numpy()
            except TypeError:  # a dtype numpy lacks (bfloat16)
                raise TypeError(f"{self.name}(): '{name}' is {value.dtype}, which numpy cannot hold; operators take "
                                f"float32, float16, int32 or int8") from None  # fmt: skip
        if value.dtype not in DTYPES:
            hint = "; convert with .astype(np.float32)" if value.dtype == np.float64 else ""
            raise TypeError(f"{self.name}(): '{name}' is {value.dtype}; operators take float32, float16, int32 "
                            f"or int8 arrays (the NPU has no float64 vector unit){hint}")  # fmt: skip
        return value

    def plan(self, arrays: dict[str, Optional[np.ndarray]], attrs: dict[str, Any]) -> Plan:
        call = (
            tuple((n, None if a is None else (a.shape, a.dtype.str)) for n, a in arrays.items()),
            tuple((n, type(v).__name__, v if _hashable(v) else id(v)) for n, v in attrs.items()),
        )
        key = (call, self.opt_level > 1)
        plan = self._plans.get(key)
        if plan is None:
            plan = self._plans[key] = self._trace(arrays, attrs)
            self._calls.setdefault(call, ({n: None if a is None else (a.shape, a.dtype) for n, a in arrays.items()},
                                          attrs))  # fmt: skip
        return plan

    def _trace(self, arrays: dict[str, Optional[np.ndarray]], attrs: dict[str, Any]) -> Plan:
        given = [a for a in arrays.values() if a is not None]
        default_dtype = given[0].dtype if given else np.dtype(np.float32)
        params = [
            Param(name, a.dtype if a is not None else default_dtype, None if a is None else tuple(a.shape))
            for name, a in arrays.items()
        ]
        steps = Tracer(self.source, params, attrs, recognise=self.opt_level > 1).run()
        for p in params:
            if p.shape is None and any(p.name in s.writes for s in steps):
                raise OperatorError(f"the output '{p.name}' was omitted, and the body never gives its shape with "
                                    f"{p.name}.resize(shape)", self.source.file, self.source.line)  # fmt: skip
        return Plan(steps, params)

    def _storage(self, plan: Plan, arrays: dict[str, Optional[np.ndarray]]) -> dict[str, np.ndarray]:
        """C-contiguous arrays for the kernels: the caller's where they are so, else copies; omitted
        outputs allocated (zero-filled)."""
        out = {}
        for p in plan.params:
            a = arrays[p.name]
            if a is None:
                out[p.name] = np.zeros(p.shape or (), p.dtype)
            else:
                out[p.name] = a if a.flags.c_contiguous else np.ascontiguousarray(a)
        return out

    # -- ahead of time ----------------------------------------------------------------------------------
    def compile(self, example: Optional[tuple] = None, **attrs: Any) -> list[str]:
        """Compiles, at this operator's opt_level, every kernel for the calls so far and for `example` (arrays,
        with attributes as keyword arguments) without running them; returns what each plan step became."""
        if example is not None:
            arrays, bound, _ = self._bind(tuple(example), attrs)
            self.plan(arrays, bound)
        if not self._calls:
            raise ValueError(f"pyasc.compile({self.name!r}): no shapes to compile for yet; call the operator once "
                             f"or pass example=(arrays...)")  # fmt: skip
        described = []
        for specs, call_attrs in list(self._calls.values()):
            plan = self.plan({n: None if s is None else np.zeros(*s) for n, s in specs.items()}, call_attrs)
            arrays = {p.name: np.zeros(p.shape or (), p.dtype) for p in plan.params}
            for launch in plan.launches(arrays):
                try:
                    launch.kernel.specialise(launch.args, {})
                except CodegenError as e:
                    raise self._compile_failed(launch, e) from e
            described.extend(step.describe() for step in plan.steps)
        return described

    def explain(self, *args: Any, **kwargs: Any) -> list[str]:
        """What each statement of the body becomes for these arguments (nothing runs)."""
        arrays, attrs, _ = self._bind(args, kwargs)
        return [step.describe() for step in self.plan(arrays, attrs).steps]


def _written(plan: Plan, name: str) -> bool:
    return any(name in step.writes for step in plan.steps)


def _hashable(value: Any) -> bool:
    try:
        hash(value)
    except TypeError:
        return False
    return True


def operator(name: Union[str, Callable[..., Any], None] = None) -> Any:
    """@pyasc.operator("Name") (or bare @pyasc.operator): the function becomes a registered Operator."""
    if callable(name):
        return register(Operator(name))
    return lambda fn: register(Operator(fn, name))


def register(fn: Union[Operator, Callable[..., Any]], name: Optional[str] = None) -> Operator:
    """Registers an operator (or wraps and registers a plain function) under its name; returns it.
    Registering again replaces the earlier operator of that name, as re-running a definition does."""
    op = fn if isinstance(fn, Operator) else Operator(fn, name)
    _REGISTRY[name or op.name] = op
    return op


def lookup(name_or_op: Union[str, Operator, Callable[..., Any]]) -> Operator:
    if isinstance(name_or_op, Operator):
        return name_or_op
    if isinstance(name_or_op, str):
        op = _REGISTRY.get(name_or_op)
        if op is None:
            known = ", ".join(sorted(_REGISTRY)) or "none"
            raise KeyError(f"no operator named {name_or_op!r} is registered (registered: {known})")
        return op
    if callable(name_or_op):
        return register(name_or_op)
    raise TypeError(f"expected an operator or its name, got {type(name_or_op).__name__}")


BACKENDS = {"model": config.Backend.Model, "npu": config.Backend.NPU}


def compile(name_or_fn: Any, backend: str = "model", opt_level: int = 3, example: Optional[tuple] = None,
            **attrs: Any) -> Operator:  # fmt: skip
    """Compiles an operator ahead of time for `backend` ("model" or "npu"; it becomes the process's backend,
    as asc.runtime.config.set_platform makes it) at opt_level 1-3, which later calls keep (1: every loop
    nest as scalar code, as written; 2 and 3: recognised nests on the cube and vector units). The kernels
    are stored in the disk cache, so later calls, in this process or the next, do not compile. Returns
    the operator."""
    op = lookup(name_or_fn)
    chosen = BACKENDS.get(str(backend).lower())
    if chosen is None:
        raise ValueError(f"pyasc.compile(): unknown backend {backend!r}; use 'model' or 'npu'")
    if opt_level not in (1, 2, 3) or isinstance(opt_level, bool):
        raise ValueError(f"pyasc.compile(): opt_level must be 1, 2 or 3, got {opt_level!r}")
    if rt.is_model() != (chosen is config.Backend.Model):
        previous = config.Backend.Model if rt.is_model() else config.Backend.NPU
        try:
            config.set_platform(chosen, rt.current_platform())
        except Exception:
            config.set_platform(previous, rt.current_platform(), check=False)  # a failed switch changes nothing
            raise
    op.opt_level = opt_level
    op.compile(example, **attrs)
    return op


def batch(calls: list, func: Any) -> list:
    """Runs `func` once per entry (a tuple of positional arguments, or a dict of keyword arguments), in order;
    returns the results in a list."""
    op = lookup(func) if isinstance(func, str) else func
    results = []
    for call in calls:
        if isinstance(call, dict):
            results.append(op(**call))
        elif isinstance(call, (tuple, list)):
            results.append(op(*call))
        else:
            results.append(op(call))
    return results
