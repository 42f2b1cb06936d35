"""@asc.jit: compile a Python kernel to IR once per specialisation, launch it."""

from __future__ import annotations

import inspect
import os
import sys
import warnings
from typing import Any, Callable, Optional

from .._ffi import ffi, lib, read_text
from ..codegen.context import compiling, in_kernel
from ..codegen.function import Function
from ..codegen.ir_builder import IRBuilder, kernel_ir_text
from ..errors import CodegenError, LaunchArgumentError, warning_category
from ..language.core.constexpr import is_constexpr
from ..language.core.ir_value import Scalar
from ..language.core.struct import Struct
from ..language.core.tensor import GlobalAddress
from ..lib.runtime import profile as rt_profile
from ..lib.runtime import state as rt
from ..lib.runtime.platforms import CompilationArch, platform_to_arch
from .arguments import KIND_BUFFER, KIND_SCALAR, ArgSpec, buffer_of, check_writable, describe, int_bits
from .compiler import OPTION_NAMES, CompileOptions, split_options
from .config import KernelType
from .launch_plan import _NULL, BIND_ERRORS, MISS, LaunchPlan, _get_ident, fast_check, make_key_function
from .launcher import (
    _DRY_RUN_KEY,
    _ENVIRON_KEYS,
    _UNPATCHED_RUN,
    Launcher,
    LaunchOptions,
    Patchable,
    on_patch,
    through_launcher,
)
from .reads import closure_values, constant_slots, disk_key_part, plain_value, typed_key

_TYPE_SCALAR, _TYPE_GM_ADDR = 1, 2
MAX_BLOCK_DIM = 65535  # asc_launch's block_dim range is 1..65535


def _param_writes(handle: Any, count: int) -> list[bool]:
    """For each parameter, whether the kernel may write through it (asc_kernel_param_writes, the IR's
    memory effects)."""
    out = ffi.new("int32_t*")
    writes = []
    for index in range(count):
        rt._check(lib.asc_kernel_param_writes(handle, index, out), "asc_kernel_param_writes")
        writes.append(bool(out[0]))
    return writes


def _visitor() -> type:
    """The AST visitor, loaded on the first compile (a large module that launches never need)."""
    from ..codegen.function_visitor import FunctionVisitor

    return FunctionVisitor


class CompiledKernel:
    def __init__(self, name: str, handle: Any, runtime_params: list[tuple[str, ArgSpec]], prints: bool = False):
        self.name, self.handle, self.runtime_params = name, handle, runtime_params
        self.prints = prints  # has printf / dump_tensor: print the launch's output
        self.param_names = [p for p, _ in runtime_params]
        self.writes = _param_writes(handle, len(runtime_params))  # by parameter: the kernel may write it
        self.runner: Callable[..., None] = _not_runnable  # set by the JITFunction that compiled it

    @property
    def ir(self) -> str:
        return kernel_ir_text(self.handle)

    def run(self, core_num: int, stream: Optional[rt.Stream], values: list[Any]) -> None:
        """Runs the kernel with its run-time argument values (what Launcher.run does), reporting as a launch
        of the function that compiled it does."""
        self.runner(self, core_num, stream or rt.current_stream(), values)


def _not_runnable(kernel: CompiledKernel, *_: Any) -> None:
    raise RuntimeError(f"kernel '{kernel.name}' was not compiled by a JIT function that can run it")


class JITFunction(Function, metaclass=Patchable):
    """A kernel (launched as ``kernel[core_num, stream](*args)``) or a device
    function called from another kernel (inlined: Function.inline)."""

    def __init__(self, fn: Callable[..., Any], **options: Any):
        super().__init__(fn)
        self.compile_options, self.codegen_options = split_options(options)
        self._options = options
        self._variants: dict[frozenset, JITFunction] = {}  # with options given at a launch (pyasc's kwargs)
        self._struct_types: dict[str, type] = {}  # struct parameters' classes, by parameter name
        self._cache: dict[tuple, CompiledKernel] = {}
        self._closure: Optional[dict[str, Any]] = None
        self._param_names = list(self.signature.parameters)
        self._constexpr = {name for name, p in self.signature.parameters.items() if is_constexpr(self._annotation(p))}
        self._constexpr_flags = [name in self._constexpr for name in self._param_names]
        # the launch fast path (launch_plan.py): plans by _launch_key; None: always the slow path
        self._plans: Optional[dict[tuple, LaunchPlan]] = None if self.compile_options.always_compile else {}
        self._launch_key: Optional[Callable[[tuple], tuple]] = None  # made with the first plan
        self._slots_where: list[tuple[int, str]] = []  # the namespaces and names _launch_key reads
        self._launchers: dict[tuple, Callable[..., None]] = {}  # kernel[core_num, stream], by grid

    def _annotation(self, p: inspect.Parameter) -> Any:
        ann = p.annotation
        if isinstance(ann, str):  # from __future__ import annotations
            try:
                ann = eval(ann, self.fn.__globals__)  # noqa: S307 - the user's own annotation
            except Exception:
                return None
        return ann

    def __repr__(self) -> str:
        return f"<asc.jit {self.fn.__module__}.{self.__name__}>"

    # -- launching ------------------------------------------------------------------
    def __getitem__(self, grid: Any) -> Callable[..., None]:
        grid = grid if isinstance(grid, tuple) else (grid,)
        if len(grid) not in (1, 2):
            raise ValueError(f"{self.__name__}[core_num, stream]: expected one or two values, got {len(grid)}")
        launcher = self._launchers.get(grid)
        if launcher is not None and type(grid[0]) is int:  # 1.0 and True hash as 1 does: checked below
            return launcher
        core_num, stream = grid[0], grid[1] if len(grid) == 2 else None
        an_int = isinstance(core_num, int) and not isinstance(core_num, bool)
        if not an_int or not 1 <= core_num <= MAX_BLOCK_DIM:
            what = "out of range" if an_int else f"a {type(core_num).__name__}"
            raise ValueError(
                f"{self.__name__}[core_num, stream]: core_num must be a positive int, 1..{MAX_BLOCK_DIM} (the "
                f"block_dim range), got {core_num!r} ({what})"
            )
        if stream is not None and not isinstance(stream, rt.Stream):
            raise TypeError(
                f"{self.__name__}[core_num, stream]: stream must be an asc stream (asc.lib.runtime.create_stream(), "
                f"current_stream()) or None, got {type(stream).__name__} {stream!r}"
            )
        launch = self.launch
        # the fast launches (launch_plan.py) of the plans this launcher ran last and the one before (two dtypes
        # launched in turn both stay fast); _no_fast_launch until there are such plans (a test less per launch)
        fast: Callable[..., Any] = _no_fast_launch
        before: Callable[..., Any] = _no_fast_launch

        def launcher(*args: Any, **kwargs: Any) -> None:
            # A fast launch checks the arguments against its plan's key, binds and launches in one generated
            # function, after launch's own first checks (nothing patched, DRY_RUN certainly unset); MISS: it did
            # nothing, launch does it all.
            nonlocal fast, before
            if not kwargs and _unpatched and Launcher is _LAUNCHER and _DRY_RUN_KEY not in _ENVIRON_KEYS:
                on = stream if stream is not None else rt.current_stream()
                if fast(args, core_num, on) is not MISS:
                    return None
                if before(args, core_num, on) is not MISS:
                    fast, before = before, fast
                    return None
            plan = launch(core_num, stream, args, kwargs)
            if plan is not None and plan.fast is not None:
                mine = plan.fast_launch()
                if mine is not fast:
                    fast, before = mine, fast
            return None

        if len(self._launchers) >= 64:  # a few grids are reused; many are not worth keeping
            self._launchers.clear()
        try:
            self._launchers[grid] = launcher
        except TypeError:  # an unhashable stream-like object: no reuse
            pass
        return launcher

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if in_kernel():
            raise CodegenError(f"{self.__name__} is called inside a kernel but was not compiled as a device function")
        raise TypeError(f"launch a kernel with {self.__name__}[core_num, stream](...), not {self.__name__}(...)")

    def _bind(self, args: tuple, kwargs: dict) -> inspect.BoundArguments:
        try:
            bound = self.signature.bind(*args, **kwargs)
        except TypeError as e:
            names = ", ".join(self.signature.parameters)
            raise LaunchArgumentError(f"{self.__name__}({names}): {e}") from None
        bound.apply_defaults()
        return bound

    def specialise(self, args: tuple, kwargs: dict) -> tuple[CompiledKernel, list[Any]]:
        """The compiled kernel for these arguments and the run-time argument values."""
        kernel, values, _ = self._specialise(args, kwargs)
        return kernel, values

    def _specialise(self, args: tuple, kwargs: dict) -> tuple[CompiledKernel, list[Any], list[tuple[int, Any]]]:
        """specialise, and where each run-time value comes from: (argument index, struct field or None)."""
        if kwargs or len(args) != len(self._param_names):
            args = tuple(self._bind(args, kwargs).arguments.values())
        key: list[Any] = [rt.current_platform(), self._globals_key()]
        runtime_values = []
        sources: list[tuple[int, Any]] = []
        specs: list[tuple[str, ArgSpec]] = []
        constexprs = {}
        for index, (name, value) in enumerate(zip(self._param_names, args)):
            if name in self._constexpr:
                value_key = typed_key(value)  # NaN equal to itself; 1, 1.0, True and -0.0 apart; lists by items
                try:
                    hash(value_key)
                except TypeError:
                    raise LaunchArgumentError(
                        f"{self.__name__}(): ConstExpr '{name}' must be hashable, or a list or tuple of such values"
                    ) from None
                key.append((name, value_key))
                # the kernel gets its own copy of a list: what it does to it cannot change the caller's (or a key)
                constexprs[name] = _copy_lists(value)
                continue
            if isinstance(value, Struct):  # one scalar parameter per field, named "param.field"
                key.append((name, "struct", type(value)))
                self._struct_types[name] = type(value)
                for (field_name, field), field_value in zip(value.fields(), value.field_values()):
                    specs.append((f"{name}.{field_name}", ArgSpec(KIND_SCALAR, field.dtype)))
                    runtime_values.append(field_value)
                    sources.append((index, field_name))
                continue
            spec = describe(value, self.__name__, name)
            key.append((name, spec.kind, spec.dtype.code))
            specs.append((name, spec))
            runtime_values.append(value)
            sources.append((index, None))
        cache_key = tuple(key)
        kernel = None if self.compile_options.always_compile else self._cache.get(cache_key)
        if kernel is None:
            kernel = self._compile(specs, constexprs)
            kernel.runner = self._run_compiled
            self._cache[cache_key] = kernel
        return kernel, runtime_values, sources

    def closure(self) -> dict[str, Any]:
        """The function's closure values: a live view of its cells, as the compiler sees them."""
        if self._closure is None:
            self._closure = closure_values(self.fn)
        return self._closure

    def _globals_key(self) -> tuple:
        """Current values of the constants this function and the functions it calls read (module
        constants, closure values, module.NAME attributes): changing one recompiles."""
        return tuple((name, typed_key(scope.get(name))) for scope, name in self._constant_slots())

    def _constant_slots(self) -> list[tuple[Any, str]]:
        """Where those constants live (reads.py)."""
        return constant_slots(self.fn, self.closure())

    def launch(self, core_num: int, stream: Optional[rt.Stream], args: tuple, kwargs: dict) -> Optional[LaunchPlan]:
        """Launches; returns the plan the fast path ran (for kernel[core_num, stream]'s launcher to try first next
        time), None after the slow path."""
        # The fast path, unless a test patched a stage or Launcher.run (or replaced Launcher), or DRY_RUN may be
        # set: checked inline (through_launcher says the same, a Python call more).
        if (
            self._plans
            and not kwargs
            and _unpatched
            and Launcher is _LAUNCHER
            and (_DRY_RUN_KEY not in _ENVIRON_KEYS or not through_launcher())
        ):
            try:
                plan = self._plans.get(self._launch_key(args))
            except (TypeError, ValueError):  # unhashable ConstExpr, or not one argument per parameter
                plan = None
            if plan is not None:  # LaunchPlan.launch, inline (a Python call less)
                stream = stream or rt.current_stream()
                run, stats = (plan.run, plan.stats) if _get_ident() == plan.owner else plan.mine()[:2]
                try:
                    if stream.asynchronous:  # the stats would be written after this plan may be gone
                        status, stats = run(args, core_num, stream.handle, _NULL), None
                        if status == 0:
                            stream.pending.append(args)  # queued: its arrays stay alive until synchronize()
                            return plan
                    else:
                        status = run(args, core_num, stream.handle, stats)
                except BIND_ERRORS:
                    status = None  # the slow path names the argument
                if status == 0 and not plan.prints:
                    if rt_profile.sessions:  # a profiling run records the launch
                        rt_profile.record_launch(self.__name__, plan.kernel.handle, stats)
                    if stats.n_warnings:  # this launch's stats
                        self._warn(plan.kernel, stream)
                    return plan
                if status is not None:
                    self._report(plan.kernel, status, stream, stats)
                    return plan
        if kwargs and not OPTION_NAMES.isdisjoint(kwargs):
            self._with_launch_options(kwargs).launch(core_num, stream, args, kwargs)
            return None  # not a plan of this function's
        kernel, values, sources = self._specialise(args, kwargs)
        stream = stream or rt.current_stream()
        # pyasc's unit tests mock a stage or Launcher.run (or replace Launcher); or DRY_RUN
        if not _unpatched or Launcher is not _LAUNCHER or through_launcher():
            compiled = self._run_compiler(kernel, self.compile_options)
            self._run_launcher(compiled, LaunchOptions(core_num, stream), tuple(values))
            return None
        self._run_compiled(kernel, core_num, stream, values, args, kwargs, sources)
        return None

    # The two stages of a launch by the names pyasc gives them, so that its tests can mock either one
    # (``patch("asc.runtime.jit.JITFunction._run_launcher")``); an unpatched launch takes the fast path instead,
    # which does the same.
    def _run_compiler(self, kernel: CompiledKernel, options: CompileOptions) -> CompiledKernel:
        """The kernel built for its backend: libasc built it when it was specialised (the NPU's object is built
        at its first launch there: asc.runtime.compiler.build_for_npu)."""
        return kernel

    def _run_launcher(self, kernel: CompiledKernel, options: LaunchOptions, runtime_args: tuple) -> None:
        Launcher(options).run(kernel, self.__name__, runtime_args)

    def _with_launch_options(self, kwargs: dict) -> JITFunction:
        """This function with the options given at a launch (``kernel[1](x, always_compile=True)``, as pyasc
        takes them) added to the decorator's; they are taken out of `kwargs`."""
        given = {k: kwargs.pop(k) for k in list(kwargs) if k in OPTION_NAMES and k not in self._param_names}
        key = frozenset(given.items())
        variant = self._variants.get(key)
        if variant is None:
            variant = self._variants[key] = JITFunction(self.fn, **{**self._options, **given})
        return variant

    def _run_compiled(
        self,
        kernel: CompiledKernel,
        core_num: int,
        stream: rt.Stream,
        values: list[Any],
        args: tuple = (),
        kwargs: Optional[dict] = None,
        sources: Optional[list] = None,
    ) -> None:
        """Binds the run-time values and launches; reports what the launch reports. With the launch's
        arguments and where each value came from (`sources`), remembers a plan for the fast path."""
        for name, value in zip(kernel.param_names, values):
            if type(value) in MOCK_TYPES:
                raise LaunchArgumentError(
                    f"{self.__name__}(): argument '{name}' is a {type(value).__name__}, which has no data: the "
                    f"kernel compiles but cannot run; compile only with {self.__name__}.compile(...)"
                )
        c_args = ffi.new("asc_arg_t[]", max(1, len(values)))
        for i, ((name, spec), value) in enumerate(zip(kernel.runtime_params, values)):
            a = c_args[i]
            a.kind, a.dtype = spec.kind, spec.dtype.code
            if spec.kind == KIND_BUFFER:
                if kernel.writes[i]:
                    check_writable(value, self.__name__, name)
                address, size, a.kind = buffer_of(value, self.__name__, name)
                a.ptr, a.size = ffi.cast("void*", address), size
            elif spec.dtype.is_float():
                a.f = float(value)
            else:
                a.i = int_bits(value, spec.dtype, self.__name__, name)
        stats = None if stream.asynchronous else ffi.new("asc_launch_stats_t*")
        status = lib.asc_launch_with_stats(kernel.handle, stream.handle, core_num, c_args, len(values),
                                           stats or ffi.NULL)  # fmt: skip
        if status == 0 and self._plans is not None and sources is not None and not kwargs:
            if len(args) == len(self._param_names):
                self._remember_plan(args, kernel, sources, values)
        if status == 0 and stream.asynchronous:
            stream.pending.append((args, kwargs, values))  # queued: its arrays stay alive until synchronize()
            return
        self._report(kernel, status, stream, stats)

    def _remember_plan(self, args: tuple, kernel: CompiledKernel, sources: list, values: list) -> None:
        slots = self._constant_slots()
        where = [(id(scope), name) for scope, name in slots]
        if self._launch_key is None or where != self._slots_where:
            # What the kernel reads changed (a device function or helper rebound to another that reads other
            # names): the plans' keys miss those names, so they all go (and the launchers' fast launches of them).
            for plan in self._plans.values():
                plan.retire()
            self._plans.clear()
            self._launch_key = make_key_function(self._constexpr_flags, slots, rt._state)
            self._slots_where = where
        try:
            key = self._launch_key(args)
            check = fast_check(key, args, slots, self._constexpr_flags, rt._state)
            self._plans[key] = LaunchPlan(kernel, sources, values, check, self)
        except TypeError:
            pass

    def _report(self, kernel: CompiledKernel, status: int, stream: rt.Stream, stats: Any) -> None:
        """After a synchronous launch: its printf output, its failure as an exception, its warnings (all this
        thread's launch's, whatever other threads launch on the stream)."""
        if kernel.prints:  # before any error: the prints are what explains it
            error = rt._error(status, self.__name__, kernel.param_names)
            sys.stdout.write(read_text(lib.asc_stream_last_output, stream.handle))
            sys.stdout.flush()
            if error is not None:
                raise error
        rt._check(status, self.__name__, kernel.param_names)
        if rt_profile.sessions:  # a profiling run records the launch
            rt_profile.record_launch(self.__name__, kernel.handle, stats)
        if stats.n_warnings:
            self._warn(kernel, stream)

    def _warn(self, kernel: CompiledKernel, stream: rt.Stream) -> None:
        """The launch's warnings, each at the line that launched it: the first frame outside asc, however many
        of asc's frames the launch took (the fast launch, the slow path, pyasc's Launcher.run)."""
        stacklevel = _launching_frame_level()
        for text in rt_profile.last_launch_stats(stream).warnings:
            category = warning_category(text)
            text = rt.name_arguments(text, kernel.param_names)
            warnings.warn(f"{self.__name__}: {text}", category, stacklevel=stacklevel)

    # -- compiling ----------------------------------------------------------------------
    def _compile(self, specs: list[tuple[str, ArgSpec]], constexprs: dict[str, Any]) -> CompiledKernel:
        """From the disk cache if it has this specialisation, else built and stored there."""
        from . import disk_cache

        key = self._disk_key(specs, constexprs) if disk_cache.cache_dir() else None
        if key is not None:
            entry = disk_cache.load(key)
            if entry is not None:
                try:
                    file, line = entry["loc"]
                    builder = IRBuilder(self.__name__, self._param_types(specs), file, line)
                    try:
                        builder.replay(entry["log"])
                        handle = builder.finish()
                    finally:
                        builder.abandon()
                    return CompiledKernel(self.__name__, handle, specs, prints=bool(entry["prints"]))
                except (CodegenError, KeyError, TypeError, ValueError):  # damaged: compile it again
                    disk_cache.reject(key)
        kernel, log = self._build(specs, constexprs, keep_log=key is not None)
        if key is not None:
            disk_cache.store(key, {"log": log, "prints": kernel.prints, "loc": (self.source.file, self.source.line)})
        return kernel

    @staticmethod
    def _param_types(specs: list[tuple[str, ArgSpec]]) -> list[tuple[int, int, int]]:
        return [(_TYPE_GM_ADDR if s.kind == KIND_BUFFER else _TYPE_SCALAR, s.dtype.code, 0) for _, s in specs]

    def _disk_key(self, specs: list[tuple[str, ArgSpec]], constexprs: dict[str, Any]) -> Optional[Any]:
        """The disk cache's key for this specialisation; None when a ConstExpr value has no stable text."""
        from . import disk_cache

        values = []
        for name in sorted(constexprs):
            value = constexprs[name]
            if not plain_value(value):
                return None
            values.append((name, type(value).__name__, value))
        parts = [
            rt.current_platform(),
            self.__name__,
            self.compile_options,
            self.codegen_options,
            [(name, s.kind, s.dtype.code) for name, s in specs],
            values,
        ]
        sources = disk_key_part(self.fn, self.closure())  # code and what it reads, transitively
        if sources is None:  # something known only by its address: no disk caching
            return None
        return disk_cache.Key([*parts, sources])

    def _build(
        self, specs: list[tuple[str, ArgSpec]], constexprs: dict[str, Any], keep_log: bool = False
    ) -> tuple[CompiledKernel, bytes]:
        """Runs the front end; with keep_log, also returns the library's build log (for the disk cache)."""
        source = self.source
        params = self._param_types(specs)
        builder = IRBuilder(self.__name__, params, source.file, source.line)
        builder.double_buffer = self.codegen_options.double_buffer
        builder.tile_dialect = self.codegen_options.tile_dialect
        builder.cv_ratio = self.codegen_options.cv_ratio
        options = self.compile_options
        builder.set_option("auto_sync", bool(options.auto_sync))
        if options.insert_sync is not None:
            builder.set_option("insert_sync", bool(options.insert_sync))
        if platform_to_arch(rt.current_platform()) == CompilationArch.C310:
            builder.set_option("buffer_tokens", True)  # insert_sync orders with get_buf / rls_buf there, as PyAsc2
        kernel_type = KernelType.AIC_ONLY if options.matmul_cube_only else options.kernel_type or KernelType.AIV_ONLY
        builder.set_option("kernel_type", KernelType(kernel_type).value)
        scope: dict[str, Any] = dict(constexprs)
        struct_fields: dict[str, list] = {}
        for index, (name, spec) in enumerate(specs):
            handle = builder.param(index)
            value = GlobalAddress(handle, spec.dtype) if spec.kind == KIND_BUFFER else Scalar(handle, spec.dtype)
            if "." in name:  # a struct's field: the kernel works on a local copy (a variable per field)
                var = Scalar(builder.op("var", [handle]), spec.dtype)
                var._mutable = True
                struct_fields.setdefault(name.split(".")[0], []).append(var)
                continue
            scope[name] = value
        for name, fields in struct_fields.items():
            scope[name] = self._struct_types[name].from_kernel_params(fields)
        try:
            with compiling(builder):
                result = _visitor()(builder, source, scope).run_body()
                if result is not None:
                    raise CodegenError(f"kernel '{self.__name__}' must not return a value", source.file, source.line)
                builder.end_body()
            if builder.splits_cube_vector or builder.cv_ratio == 2:  # one tile program over a mix kernel's cores
                mix = KernelType.MIX_AIC_1_2 if builder.cv_ratio == 2 else KernelType.MIX_AIC_1_1
                builder.set_option("kernel_type", KernelType(options.kernel_type or mix).value)
                builder.set_option("split_cube_vector", 1)
                builder.set_option("split_credits", builder.split_credits)
            elif builder.uses_matmul and options.kernel_type is None and not options.matmul_cube_only:
                builder.set_option("kernel_type", KernelType.MIX_AIC_1_2.value)  # as pyasc detects it
            elif builder.uses_cube and options.kernel_type is None:
                builder.set_option("kernel_type", KernelType.AIC_ONLY.value)  # asc2's matmuls run on the cube core
            log = builder.build_log() if keep_log else b""
            handle = builder.finish()
        finally:
            builder.abandon()
        return CompiledKernel(self.__name__, handle, specs, prints=builder.prints), log

    def compile(self, *args: Any, **kwargs: Any) -> CompiledKernel:
        """The kernel compiled for these arguments, nothing run: arrays, or MockTensor(dtype) and
        MockValue(dtype) where there is no data (an ahead-of-time build); ``.ir`` is its IR."""
        if kwargs and not OPTION_NAMES.isdisjoint(kwargs):
            return self._with_launch_options(kwargs).compile(*args, **kwargs)
        return self.specialise(args, kwargs)[0]

    def ir(self, *args: Any, **kwargs: Any) -> str:
        """The IR text of the kernel specialised for these arguments (nothing runs)."""
        return self.compile(*args, **kwargs).ir


def _copy_lists(value: Any) -> Any:
    """`value` with its lists copied (at any depth in lists and tuples); other values are themselves."""
    if isinstance(value, list):
        return [_copy_lists(v) for v in value]
    if type(value) is tuple and any(isinstance(v, (list, tuple)) for v in value):
        return tuple(_copy_lists(v) for v in value)
    return value


class MockTensor:
    """A GM buffer of `dtype` without data, standing for an array argument when only compiling (pyasc's
    unit tests, ahead-of-time builds): ``kernel.compile(MockTensor(asc.float16))``."""

    def __init__(self, dtype: Any):
        self.dtype = dtype

    def __repr__(self) -> str:
        return f"MockTensor({self.dtype})"


class MockValue:
    """A scalar of `dtype` without a value, standing for a scalar argument when only compiling."""

    def __init__(self, dtype: Any):
        self.dtype = dtype

    def __repr__(self) -> str:
        return f"MockValue({self.dtype})"


MOCK_TYPES = (MockTensor, MockValue)


def jit(fn: Optional[Callable[..., Any]] = None, **options: Any) -> Any:
    """Decorator: ``@asc.jit`` or ``@asc.jit(...)``."""
    if fn is None:
        return lambda f: JITFunction(f, **options)
    return JITFunction(fn, **options)


_UNPATCHED_COMPILER, _UNPATCHED_LAUNCHER = JITFunction._run_compiler, JITFunction._run_launcher
_ASC_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # python/asc
_GENERATED = "<asc "  # the file name of the code the launch plans generate ("<asc launch plan>")


def _launching_frame_level() -> int:
    """warnings.warn's stacklevel, called from the caller of this function, that names the first frame outside
    asc's own code."""
    frame, level = sys._getframe(2), 2
    while frame is not None and (
        frame.f_code.co_filename.startswith(_ASC_DIR) or frame.f_code.co_filename.startswith(_GENERATED)
    ):
        frame, level = frame.f_back, level + 1
    return level


_LAUNCHER = Launcher
_unpatched = True  # Launcher.run and JITFunction's stages are their own (kept by Patchable's on_patch)


def _check_patched() -> None:
    global _unpatched
    _unpatched = (
        Launcher.run is _UNPATCHED_RUN
        and JITFunction._run_launcher is _UNPATCHED_LAUNCHER
        and JITFunction._run_compiler is _UNPATCHED_COMPILER
    )


on_patch.append(_check_patched)


def _no_fast_launch(args: tuple, core_num: int, stream: Any) -> Any:
    """A launcher's fast launch before it has one: always MISS."""
    return MISS
