"""The launch fast path. A cached launch does only what it must: compute a
cheap key from the arguments' types, find the plan made for them, write the
arguments into a preallocated ``asc_arg_t`` block with straight-line code
generated for that plan, and make one ``asc_launch`` call. Anything unusual
(an argument the plan cannot bind, a failed launch, printf output, warnings)
goes back to the slow path, which reports it."""

from __future__ import annotations

import threading
import weakref
from typing import Any, Callable, Optional

from .._ffi import ffi, lib
from ..lib.runtime import profile as rt_profile
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
        return _I32 if _int32(value) else _I64
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


def fast_check(key: tuple, args: tuple, slots: list[tuple[Any, str]], constexpr_flags: list[bool],
               state: Any) -> Optional[tuple[list[str], dict[str, Any]]]:  # fmt: skip
    """Lines (and their scope) that test, for a fast launch (LaunchPlan), the parts of make_key_function's key
    other than the run-time arguments' (LaunchPlan's binding tests dtypes and widths): the platform, the values
    the kernel reads and the ConstExpr values, each first by identity with its value at `args`' launch (where
    that implies the same key part), else by type and typed value as the key function does. None when `args`'
    key is not `key`, or a run-time argument is not a numpy array or a Python int, float or bool (those launches
    take the usual path)."""
    from .reads import TYPED, typed_key

    np = numpy_module()
    if np is None or len(args) != len(constexpr_flags):
        return None
    scope: dict[str, Any] = {"state": state, "P": state.platform, "M": _MISSING, "tk": typed_key, "nd": np.ndarray}
    expected: list[Any] = [state.platform]
    lines = [f"    {''.join(f'a{i}, ' for i in range(len(args)))}= args", "    if state.platform != P: return MISS"]

    def test(value: Any, name: str, tag: str) -> None:  # value's key parts, and its line
        t = type(value)
        part = typed_key(value) if t in TYPED else value
        expected.extend((t, part))
        scope.update({f"O{tag}": value, f"T{tag}": t, f"V{tag}": part})
        same = f"{name} is not O{tag} and " if t not in TYPED or t is float or _immutable(value) else ""
        compare = f"tk({name}) != V{tag}" if t in TYPED else f"{name} != V{tag}"
        lines.append(f"    if {same}(type({name}) is not T{tag} or {compare}): return MISS")

    for j, (mapping, name) in enumerate(slots):
        scope[f"g{j}"] = mapping
        lines.append(f"    s{j} = g{j}.get({name!r}, M)")
        test(mapping.get(name, _MISSING), f"s{j}", f"s{j}")
    for i, (constexpr, value) in enumerate(zip(constexpr_flags, args)):
        if constexpr:
            test(value, f"a{i}", f"c{i}")
        elif type(value) is np.ndarray:
            expected.append(value.dtype)
            scope[f"D{i}"] = value.dtype
        elif type(value) is int:
            expected.append(_I32 if _int32(value) else _I64)
        elif type(value) in (float, bool):
            expected.append(type(value))
        else:
            return None
    try:
        same = tuple(expected) == key
    except Exception:  # noqa: BLE001 - values that cannot be compared: no fast launch
        return None
    return (lines, scope) if same else None


def _immutable(value: Any) -> bool:
    """A tuple or frozenset that nothing can change: the same object always has the same typed_key."""
    if type(value) in (tuple, frozenset):
        return all(_immutable(v) for v in value)
    return type(value) in (int, float, bool, str, bytes, complex, type(None))


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
    launch reads its block while the GIL is released, so two threads must never share one).

    With `check` (fast_check's lines for the key the plan is stored under) and `jit` (the JITFunction reporting its
    launches), each thread also gets a `fast` launch: the whole cached launch in one generated function, for
    kernel[core_num, stream]'s launcher to try first (JITFunction.__getitem__)."""

    __slots__ = ("kernel", "handle", "c_args", "count", "run", "stats", "prints", "fast", "_code", "_types",
                 "_memos", "_scalar_memos", "_fast_scope", "_retire", "owner", "_others")  # fmt: skip

    def __init__(self, kernel: Any, sources: list[tuple[int, str | None]], values: list[Any],
                 check: Optional[tuple[list[str], dict[str, Any]]] = None, jit: Any = None):  # fmt: skip
        """`sources`: for each run-time parameter, the launch argument it comes from (and the struct field,
        for struct parameters); `values`: one launch's values, to see which are numpy arrays or tensors."""
        self.kernel, self.handle, self.prints = kernel, kernel.handle, kernel.prints
        self.count = len(sources)
        np = numpy_module()
        ndarray = np.ndarray if np else _NoArray
        self._types = [(spec.kind, spec.dtype.code) for _name, spec in kernel.runtime_params]
        self._memos: list[int] = []
        self._scalar_memos: list[int] = []
        # run(args, core_num, stream_handle, stats): binds and makes the launch call itself (one
        # Python call less per launch than a binder and a call apart). Each field's memo (w, n: the array bound
        # there and its size; v: the scalar) is a global of the runner's scope, shared with `fast`.
        lines = ["def run(args, core_num, sh, st):"]
        memos = []
        fast = [] if check is not None and jit is not None else None  # fast's binding, parameter by parameter
        for i, ((_name, spec), (index, attr), value) in enumerate(zip(kernel.runtime_params, sources, values)):
            source = f"args[{index}]" + (f".{attr}" if attr else "")
            lines.append(f"    v = {source}")
            written = spec.kind == KIND_BUFFER and kernel.writes[i]  # read-only buffers: the slow path refuses
            field = "f" if spec.dtype.is_float() else "i"
            if spec.kind == KIND_BUFFER and type(value).__module__.startswith("torch"):
                check_ = "check_torch_written" if written else "check_torch"
                lines += [f"    {check_}(v)", f"    f{i}.ptr = cast(v.data_ptr())",
                          f"    f{i}.size = v.numel() * v.element_size()"]  # fmt: skip
                fast = None
            elif spec.kind == KIND_BUFFER and type(value) is ndarray:
                # The same live array as last time (weakly held, so never a recycled address) with the same
                # size has the same memory: an array's data pointer only moves when a resize changes its size.
                # A written array is bound requiring a writable buffer (a read-only one raises); an array made
                # read-only since then keeps its memo, so the memo is checked with its flags too.
                stale = " or not {0}.flags.writeable" if written else ""
                bind = [f"        f{i}.ptr = fb(char_array, {{0}}, {written})",
                        f"        f{i}.size = n{i} = {{0}}.nbytes", f"        w{i} = weak({{0}})"]  # fmt: skip
                test = f"    if w{i}() is not {{0}} or n{i} != {{0}}.nbytes{stale}:"
                lines += [line.format("v") for line in [test, *bind]]
                memos += [f"w{i}", f"n{i}"]
                self._memos.append(i)
                if fast is not None:  # the key's dtype checked too, where the key function would read it
                    a = f"a{index}"
                    # by identity (numpy's builtin dtypes are singletons), else by ==, as the key's dict lookup
                    dtype = f"not ({a}.dtype is D{index} or {a}.dtype == D{index})"
                    fast += [test.format(a), f"        if type({a}) is not nd or {dtype}: return MISS",
                             *(line.format(a) for line in bind), f"    elif {dtype}: return MISS"]  # fmt: skip
            elif spec.kind == KIND_BUFFER:
                lines += [f"    f{i}.ptr = fb(char_array, v, {written})", f"    f{i}.size = v.nbytes"]
                fast = None
            elif attr is None and type(value) in _SAME_SCALAR:
                # An immutable scalar identical to the one bound last time is in the field already; so is an
                # equal int (not an equal float: 0.0 == -0.0).
                write = f"if {{0}} != v{i}: f{i}.{field} = {{0}}" if type(value) is int else f"f{i}.{field} = {{0}}"
                lines += [f"    if v is not v{i}:", "        " + write.format("v"), f"        v{i} = v"]
                memos.append(f"v{i}")
                self._scalar_memos.append(i)
                if fast is not None:
                    a = f"a{index}"
                    fast += [f"    if {a} is not v{i}:", f"        if not ({_scalar_test(a, value)}): "
                             "return MISS", "        " + write.format(a), f"        v{i} = {a}"]  # fmt: skip
            elif spec.dtype.is_float():
                lines.append(f"    f{i}.f = v")
                fast = None
            elif attr is not None and spec.dtype.bitwidth < 64:  # a struct field: its dtype's range (the slow path
                lo, hi = int_range(spec.dtype)  # names a value outside it)
                lines += [f"    if not {lo} <= v <= {hi}: raise BindError", f"    f{i}.i = v"]
                fast = None
            else:
                lines.append(f"    f{i}.i = v")
                fast = None
        # The launch: one asc_launch_call with the plan's call block, whose fields are rewritten only when they
        # differ from the last launch's (cffi converts each argument of a call: six cost more than a no-op
        # launch's blocks). CS, CT, CK: the stream handle, stats block and block_dim in the block.
        memos += ["CS", "CT", "CK"]
        call = ["if {0} is not CS: cb.stream = CS = {0}", "if {1} is not CT: cb.stats = CT = {1}",
                "if core_num is not CK: cb.block_dim = CK = core_num", "{2} = call(cb)"]  # fmt: skip
        lines += ["    " + line.format("sh", "st", "status") for line in call]
        lines.append("    return status")
        lines.insert(1, f"    global {', '.join(memos)}")
        self._fast_scope: Optional[dict[str, Any]] = None
        if fast is not None and check is not None:
            lines += _fast_lines(check[0], fast, memos, call, kernel.prints)
            self._fast_scope = dict(check[1], report=jit._report, warn=jit._warn, name=jit.__name__,
                                    kernel=kernel, record=rt_profile.record_launch,
                                    sessions=rt_profile.sessions)  # fmt: skip
        self._code = compile("\n".join(lines), "<asc launch plan>", "exec")
        self.owner = threading.get_ident()  # the thread whose runner is self.run
        self._others: dict[int, tuple[Callable[..., int], Any, Optional[Callable[..., Any]]]] = {}
        self._retire: list[Callable[[], None]] = []
        self.c_args, self.run, self.stats, self.fast = self._new_binder()

    def _new_binder(self) -> tuple[Any, Callable[..., int], Any, Optional[Callable[..., Any]]]:
        """A fresh argument block, the runner generated for this plan writing into it (and launching), the
        stats block its synchronous launches fill, and the fast launch for this thread (None without one)."""
        c_args = ffi.new("asc_arg_t[]", max(1, self.count))
        stats = ffi.new("asc_launch_stats_t*")
        call_block = ffi.new("asc_launch_request_t*")
        call_block.kernel, call_block.args, call_block.n_args = self.handle, c_args, self.count
        # (c_args is in the scope to keep it alive: the request block holds only its address.)
        scope: dict[str, Any] = dict(BindError=BindError, fb=_backend_from_buffer, char_array=_CHAR_ARRAY,
                                     cast=_void_pointer, check_torch=_check_torch,
                                     check_torch_written=_check_torch_written, weak=weakref.ref,
                                     call=_asc_launch_call, cb=call_block, c_args=c_args, handle=self.handle,
                                     CS=_MISSING, CT=_MISSING, CK=_MISSING)  # fmt: skip
        for i, (kind, dtype) in enumerate(self._types):
            field = c_args[i]
            field.kind, field.dtype = kind, dtype
            scope[f"f{i}"] = field
        for i in self._memos:
            scope[f"w{i}"], scope[f"n{i}"] = _dead, -1
        for i in self._scalar_memos:
            scope[f"v{i}"] = _MISSING
        if self._fast_scope is not None:
            words = memoryview(ffi.buffer(stats)).cast("I") if _N_WARNINGS_WORD else None
            scope.update(self._fast_scope, OWNER=threading.get_ident(), gi=_get_ident, stats=stats, NULL=_NULL,
                         MISS=MISS, BIND_ERRORS=BIND_ERRORS, words=words)  # fmt: skip
        exec(self._code, scope)  # noqa: S102 - code generated in __init__ from the plan
        fast = scope.get("fast")
        if fast is not None:
            self._retire.append(scope["retire"])
        return c_args, scope["run"], stats, fast

    def launch(self, core_num: int, stream: Any, args: tuple) -> tuple[int, Any]:
        """Binds `args` and launches (JITFunction.launch does the same inline); returns the status (the
        caller reports failures) and, for a launch on a synchronous stream, its stats (this thread's block:
        another thread's launches never write it)."""
        run, stats = (self.run, self.stats) if _get_ident() == self.owner else self.mine()[:2]
        if stream.asynchronous:  # the stats would be written after this plan may be gone
            return run(args, core_num, stream.handle, _NULL), None
        return run(args, core_num, stream.handle, stats), stats

    def mine(self) -> tuple[Callable[..., int], Any, Optional[Callable[..., Any]]]:
        """The runner, stats block and fast launch of a thread other than the plan's first."""
        thread = _get_ident()
        mine = self._others.get(thread)
        if mine is None:
            _, run, stats, fast = self._new_binder()
            mine = self._others[thread] = (run, stats, fast)
        return mine

    def fast_launch(self) -> Optional[Callable[..., Any]]:
        """This thread's fast launch (None if the plan has none)."""
        return self.fast if _get_ident() == self.owner else self.mine()[2]

    def retire(self) -> None:
        """The plan's fast launches miss from now on (the plan left JITFunction._plans: what its key checks may
        no longer be all the kernel reads)."""
        for retire in self._retire:
            retire()


MISS = object()  # what a fast launch returns when it did not launch: the launcher takes the usual path


_SAME_SCALAR = (int, float, bool)  # immutable: the same object as last time is the same value


def _scalar_test(a: str, value: Any) -> str:
    """The key function's test (arg_key) for a run-time scalar like `value`: an int by its width, else by type."""
    if type(value) is int:
        return f"type({a}) is int and {'' if _int32(value) else 'not '}-2147483648 <= {a} <= 2147483647"
    return f"type({a}) is {type(value).__name__}"


def _int32(value: int) -> bool:
    return -2147483648 <= value <= 2147483647


def _fast_lines(check: list[str], bind: list[str], memos: list[str], call: list[str], prints: bool) -> list[str]:
    """fast(args, core_num, stream): the whole cached launch, as JITFunction.launch's fast path does it, for a
    launcher that remembers the plan it took last time. MISS when anything differs from the plan's key (then
    the usual path looks the plan up) or an argument does not bind (then it names the argument); after the
    launch, the same reporting as JITFunction.launch."""
    lines = ["def fast(args, core_num, stream):"]
    if memos:
        lines.append(f"    global {', '.join(memos)}")
    lines += ["    if gi() != OWNER: return MISS", "    try:"]
    lines += ["    " + line for line in check + bind]
    lines += ["        if stream.asynchronous:",
              "            s, st = NULL, None",
              "        else:",
              "            s = st = stats",
              "        sh = stream.handle"]  # fmt: skip
    lines += ["        " + line.format("sh", "s", "status") for line in call]
    lines += ["    except BIND_ERRORS:",
              "        return MISS",
              "    if status == 0:",
              "        if st is None:",
              "            stream.pending.append(args)  # queued: its arrays stay alive until synchronize()",
              "            return None"]  # fmt: skip
    if not prints:
        lines += ["        if sessions: record(name, handle, st)",
                  f"        if {_N_WARNINGS}: warn(kernel, stream)",
                  "        return None"]  # fmt: skip
    lines += ["    report(kernel, status, stream, st)",
              "def retire():",
              "    global P",
              "    P = MISS"]  # fmt: skip
    return lines


_get_ident = threading.get_ident
_asc_launch_call = lib.asc_launch_call
_NULL = ffi.NULL
_CHAR_ARRAY = ffi.typeof("char[]")
_N_WARNINGS_FIELD = dict(ffi.typeof("asc_launch_stats_t").fields)["n_warnings"]
_N_WARNINGS_WORD = (_N_WARNINGS_FIELD.type is ffi.typeof("uint32_t") and _N_WARNINGS_FIELD.offset % 4 == 0
                    and ffi.sizeof("asc_launch_stats_t") % 4 == 0)  # fmt: skip
# How a fast launch reads its stats' n_warnings: as a 32-bit word of them (cffi's field access costs more).
_N_WARNINGS = f"words[{_N_WARNINGS_FIELD.offset // 4}]" if _N_WARNINGS_WORD else "st.n_warnings"
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
