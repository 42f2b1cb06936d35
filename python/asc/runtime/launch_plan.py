"""The launch fast path. A cached launch does only what it must: compute a
cheap key from the arguments' types, find the plan made for them, write the
arguments into a preallocated ``asc_arg_t`` block with straight-line code
generated for that plan, and make one ``asc_launch`` call. Anything unusual
(an argument the plan cannot bind, a failed launch, printf output, warnings)
goes back to the slow path, which reports it."""

from __future__ import annotations

import threading
import weakref
from typing import Any, Callable

from .._ffi import ffi, lib
from .arguments import KIND_BUFFER, int_range, numpy_module


class _NoArray:  # what `type(x) is ndarray` compares with before numpy is imported
    pass


_I32, _I64 = object(), object()  # key entries of Python ints that fit int32 / need int64
_MISSING = object()


def _dead() -> None:  # a weak reference that never matches
    return None


def arg_key(value: Any) -> Any:
    """What the compiled kernel depends on in a run-time argument: its type (dtype for arrays, width for
    Python ints). Two arguments with the same key bind alike."""
    t = type(value)
    if t is int:
        return _I32 if -2147483648 <= value <= 2147483647 else _I64
    dtype = getattr(value, "dtype", None)
    return t if dtype is None or not hasattr(value, "__len__") else (t, dtype)


def make_key_function(constexpr_flags: list[bool], slots: list[tuple[Any, str]], state: Any) -> Callable:
    """A function of the launch arguments giving the fast path's key: the platform, the values the kernel
    reads (`slots`: module constants, closure cells, device functions), ConstExpr values and the run-time
    arguments' arg_key — generated as straight-line code for this kernel's parameters. Values enter with
    their type (1, 1.0 and True apart), floats and tuples as reads.typed_key (0.0 and -0.0 apart, NaN equal
    to itself). Raises TypeError for an unhashable ConstExpr."""
    from .reads import TYPED, typed_key

    np = numpy_module()
    scope: dict[str, Any] = {"state": state, "ak": arg_key, "nd": np.ndarray if np else _NoArray, "M": _MISSING,
                             "TY": TYPED, "tk": typed_key, "I32": _I32}  # fmt: skip
    parts = ["state.platform"]
    body = []
    for j, (mapping, name) in enumerate(slots):
        scope[f"g{j}"] = mapping
        body += [f"    s{j} = g{j}.get({name!r}, M)", f"    t{j} = type(s{j})", f"    if t{j} in TY: s{j} = tk(s{j})"]
        parts += [f"t{j}", f"s{j}"]
    for i, constexpr in enumerate(constexpr_flags):
        if constexpr:
            body += [f"    c{i} = type(a{i})", f"    if c{i} in TY: a{i} = tk(a{i})"]
            parts += [f"c{i}", f"a{i}"]
        else:
            # arg_key inline for the usual arrays and int32 ints (a Python call less per argument)
            parts.append(f"(a{i}.dtype if type(a{i}) is nd else I32 if type(a{i}) is int and "
                         f"-2147483648 <= a{i} <= 2147483647 else ak(a{i}))")  # fmt: skip
    lines = ["def key(args):"]
    if constexpr_flags:
        lines.append(f"    {', '.join(f'a{i}' for i in range(len(constexpr_flags)))}, = args")
    lines += body
    lines.append(f"    return ({', '.join(parts)},)")
    exec("\n".join(lines), scope)  # noqa: S102 - code generated above from the signature
    return scope["key"]


class BindError(Exception):
    """An argument the plan cannot bind as it is (the slow path says what is wrong)."""


def _check_torch(value: Any) -> None:
    if value.device.type != "cpu" or not value.is_contiguous():
        raise BindError


def _check_torch_written(value: Any) -> None:
    """A tensor the kernel writes: one that requires grad goes to the slow path (which refuses it, or under
    no_grad accepts it); the version counter is bumped, as torch's in-place ops do."""
    if value.requires_grad or value.device.type != "cpu" or not value.is_contiguous():
        raise BindError
    _increment_version(value)


class LaunchPlan:
    """One specialisation's launch: the kernel handle, an argument block, and a runner that writes one
    launch's values into it and launches. Each thread that launches the plan gets a block and runner of its own (a
    launch reads its block while the GIL is released, so two threads must never share one)."""

    __slots__ = ("kernel", "handle", "c_args", "count", "run", "stats", "prints", "_code", "_types", "_memos",
                 "owner", "_others")  # fmt: skip

    def __init__(self, kernel: Any, sources: list[tuple[int, str | None]], values: list[Any]):
        """`sources`: for each run-time parameter, the launch argument it comes from (and the struct field,
        for struct parameters); `values`: one launch's values, to see which are numpy arrays or tensors."""
        self.kernel, self.handle, self.prints = kernel, kernel.handle, kernel.prints
        self.count = len(sources)
        np = numpy_module()
        ndarray = np.ndarray if np else _NoArray
        self._types = [(spec.kind, spec.dtype.code) for _name, spec in kernel.runtime_params]
        self._memos: list[int] = []
        # run(args, core_num, stream_handle, stats): binds and makes the asc_launch_with_stats call itself (one
        # Python call less per launch than a binder and a call apart).
        lines = ["def run(args, core_num, sh, st):"]
        for i, ((_name, spec), (index, attr), value) in enumerate(zip(kernel.runtime_params, sources, values)):
            source = f"args[{index}]" + (f".{attr}" if attr else "")
            lines.append(f"    v = {source}")
            written = spec.kind == KIND_BUFFER and kernel.writes[i]  # read-only buffers: the slow path refuses
            if spec.kind == KIND_BUFFER and type(value).__module__.startswith("torch"):
                check = "check_torch_written" if written else "check_torch"
                lines += [f"    {check}(v)", f"    f{i}.ptr = cast(v.data_ptr())",
                          f"    f{i}.size = v.numel() * v.element_size()"]  # fmt: skip
            elif spec.kind == KIND_BUFFER and type(value) is ndarray:
                # The same live array as last time (weakly held, so never a recycled address) with the same
                # size has the same memory: an array's data pointer only moves when a resize changes its size.
                # A written array is bound requiring a writable buffer (a read-only one raises); an array made
                # read-only since then keeps its memo, so the memo is checked with its flags too.
                stale = " or not v.flags.writeable" if written else ""
                lines += [f"    m = memo{i}", f"    if m[0]() is not v or m[1] != v.nbytes{stale}:",
                          f"        f{i}.ptr = fb(char_array, v, {written})", f"        f{i}.size = v.nbytes",
                          f"        memo{i}[:] = (weak(v), v.nbytes)"]  # fmt: skip
                self._memos.append(i)
            elif spec.kind == KIND_BUFFER:
                lines += [f"    f{i}.ptr = fb(char_array, v, {written})", f"    f{i}.size = v.nbytes"]
            elif spec.dtype.is_float():
                lines.append(f"    f{i}.f = v")
            elif attr is not None and spec.dtype.bitwidth < 64:  # a struct field: its dtype's range (the slow path
                lo, hi = int_range(spec.dtype)  # names a value outside it)
                lines += [f"    if not {lo} <= v <= {hi}: raise BindError", f"    f{i}.i = v"]
            else:
                lines.append(f"    f{i}.i = v")
        lines.append(f"    return call(handle, sh, core_num, c_args, {self.count}, st)")
        self._code = compile("\n".join(lines), "<asc launch plan>", "exec")
        self.owner = threading.get_ident()  # the thread whose runner is self.run
        self._others: dict[int, tuple[Callable[..., int], Any]] = {}
        self.c_args, self.run, self.stats = self._new_binder()

    def _new_binder(self) -> tuple[Any, Callable[..., int], Any]:
        """A fresh argument block, the runner generated for this plan writing into it (and launching), and the
        stats block its synchronous launches fill."""
        c_args = ffi.new("asc_arg_t[]", max(1, self.count))
        scope: dict[str, Any] = dict(BindError=BindError, fb=_backend_from_buffer, char_array=_CHAR_ARRAY,
                                     cast=_void_pointer, check_torch=_check_torch,
                                     check_torch_written=_check_torch_written, weak=weakref.ref,
                                     call=_asc_launch_with_stats, handle=self.handle, c_args=c_args)  # fmt: skip
        for i, (kind, dtype) in enumerate(self._types):
            field = c_args[i]
            field.kind, field.dtype = kind, dtype
            scope[f"f{i}"] = field
        for i in self._memos:
            scope[f"memo{i}"] = [_dead, -1]
        exec(self._code, scope)  # noqa: S102 - code generated in __init__ from the plan
        return c_args, scope["run"], ffi.new("asc_launch_stats_t*")

    def launch(self, core_num: int, stream: Any, args: tuple) -> tuple[int, Any]:
        """Binds `args` and launches (JITFunction.launch does the same inline); returns the status (the
        caller reports failures) and, for a launch on a synchronous stream, its stats (this thread's block:
        another thread's launches never write it)."""
        run, stats = (self.run, self.stats) if _get_ident() == self.owner else self.mine()
        if stream.asynchronous:  # the stats would be written after this plan may be gone
            return run(args, core_num, stream.handle, _NULL), None
        return run(args, core_num, stream.handle, stats), stats

    def mine(self) -> tuple[Callable[..., int], Any]:
        """The runner and stats block of a thread other than the plan's first."""
        thread = _get_ident()
        mine = self._others.get(thread)
        if mine is None:
            _, run, stats = self._new_binder()
            mine = self._others[thread] = (run, stats)
        return mine


_get_ident = threading.get_ident
_asc_launch_with_stats = lib.asc_launch_with_stats
_NULL = ffi.NULL
_CHAR_ARRAY = ffi.typeof("char[]")
# ffi.from_buffer without cffi's Python-level argument handling (the out-of-line ffi's is native already)
_backend_from_buffer = getattr(ffi, "_backend", ffi).from_buffer


def _increment_version(tensor: Any) -> None:
    from torch.autograd.graph import increment_version

    global _increment_version
    _increment_version = increment_version  # imported once, at the first written tensor
    increment_version(tensor)


def _void_pointer(address: int) -> Any:
    return ffi.cast("void*", address)


BIND_ERRORS = (BindError, TypeError, ValueError, BufferError, OverflowError, AttributeError)
