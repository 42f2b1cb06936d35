"""A thin Python face on the C ABI's kernel builder."""

from __future__ import annotations

from typing import Callable, Optional, Sequence, Union

from .._ffi import NO_VALUE, ffi, last_error, lib, read_text, status_name
from ..errors import CodegenError

AttrValue = Union[int, float, str]

_module = None


def _shared_module():
    """One asc_module_t per process; it owns every compiled kernel."""
    global _module
    if _module is None:
        out = ffi.new("asc_module_t**")
        if lib.asc_module_create(out) != lib.ASC_OK:
            raise RuntimeError(last_error()[0])
        _module = out[0]
    return _module


_builder_op = lib.asc_builder_op
_texts: dict[str, bytes] = {}  # op and attribute names, and string attribute values: a small fixed set
_c_texts: dict[str, object] = {}


def _text(s: str) -> bytes:
    b = _texts.get(s)
    if b is None:
        b = _texts[s] = s.encode("utf-8", "backslashreplace")
    return b


def _c_text(s: str):
    """A NUL-terminated C copy of `s`, kept for the life of the process (these strings are few)."""
    c = _c_texts.get(s)
    if c is None:
        c = _c_texts[s] = ffi.new("char[]", _text(s))
    return c


# dtype codes from here on are pyasc's names with no element type on the Model's platforms (language/core/dtype.py)
_FIRST_NON_ELEMENT_CODE = 100


def _encode_attrs(attrs: dict[str, AttrValue]):
    c_attrs = ffi.new("asc_attr_t[]", len(attrs))
    for i, (key, value) in enumerate(attrs.items()):
        entry = c_attrs[i]
        entry.name, entry.name_len = _c_text(key), len(_text(key))
        if isinstance(value, str):
            entry.kind, entry.s, entry.s_len = lib.ASC_ATTR_STRING, _c_text(value), len(_text(value))
        elif isinstance(value, float):
            entry.kind, entry.f = lib.ASC_ATTR_FLOAT, value
        else:
            entry.kind, entry.i = lib.ASC_ATTR_INT, int(value)
    return c_attrs


class IRBuilder:
    """Builds one kernel through the C ABI. The library records the building calls (build_log()); the disk
    cache keeps that log, and replay() rebuilds the kernel from it without the Python front end."""

    def __init__(self, name: str, params: Sequence[tuple[int, int, int]], file: str, line: int):
        self.loc: tuple[str, int, int] = (file, line, 0)
        # The name an assignment is binding, for diagnostics (LocalTensor names).
        self.pending_name: Optional[str] = None
        self.current_pipe = None  # the TPipe created last, for asc.get_tpipe_ptr()
        self.prints = False  # printf / dump_tensor emitted: the launch reads the output
        self.uses_matmul = False  # register_matmul emitted: MIX_AIC_1_2 unless a kernel type was given
        self.uses_cube = False  # the tile API's cube tiles (asc2.cube): AIC_ONLY unless a kernel type was given
        # Double buffering (CodegenOptions.double_buffer): loads' buffers are marked for the double_buffer
        # pass (asc.codegen.regions.load_buffer), except inside regions.unpaired() (unpaired > 0).
        self.double_buffer = False
        self.unpaired = 0
        self.tile_dialect = ""  # CodegenOptions.tile_dialect: which tile API's operator meanings apply (asc2.dialect)
        self.cv_ratio = 1  # CodegenOptions.cv_ratio: vector sub-blocks per cube core of a split tile kernel
        self.splits_cube_vector = False  # asc2.handover / asc2.join emitted: a mix kernel, split by the library
        self.split_credits = 0  # the split's hand-back flags (bit f: flag f): the split_credits option
        self.join_sites = 0  # asc2.join's copies so far (each has its own flags)
        # asctile's cv_strategy (asc2.halves): the split inside the context, and the visitor's hook on the calls
        # and operators of the kernel once it entered one
        self.cv_split: Optional[int] = None
        self.tile_call_hook: Optional[Callable[[Callable, list, dict], object]] = None
        self.cv_copy: Optional[Callable] = None
        self.depth = 0  # run-time regions (for bodies, if branches) open at the insertion point
        # What at_region_end asked for, per open region (the kernel's body first): run as each one closes.
        self._region_exits: list[list[Callable[[], None]]] = [[]]
        self.loc_pinned = 0  # > 0 while an adv expansion is built: its ops keep the user's line
        # The element dtype behind uint64 address values: get_phy_addr results, and the uint64 tensors set_value
        # stored them in (by IR value), for trans_data_to_5hd's template argument, as pyasc infers it.
        self.addr_dtypes: dict[int, object] = {}
        types = ffi.new("asc_type_t[]", max(1, len(params)))
        for i, (kind, dtype, position) in enumerate(params):
            types[i].kind, types[i].dtype, types[i].position = kind, dtype, position
        encoded = name.encode("utf-8", "backslashreplace")
        out = ffi.new("asc_builder_t**")
        self._check(lib.asc_build_kernel(_shared_module(), encoded, len(encoded), types, len(params), out))
        self._handle = out[0]
        self._loc_file = ""
        self._c_loc = ffi.new("asc_loc_t*")
        self._result = ffi.new("asc_value_t*")

    # -- errors ---------------------------------------------------------------
    def _check(self, status: int) -> None:
        if status == lib.ASC_OK:
            return
        message, file, line, col = last_error()
        if not file:
            file, line, col = self.loc
        raise CodegenError(f"{message} [{status_name(status)}]", file, line, col)

    def _location(self):
        file, line, col = self.loc
        c_loc = self._c_loc
        if file != self._loc_file:  # the file changes rarely (device functions in other modules)
            encoded = file.encode("utf-8", "backslashreplace")
            self._loc_file, self._loc_buf = file, ffi.new("char[]", encoded)
            c_loc.file, c_loc.file_len = self._loc_buf, len(encoded)
        c_loc.line, c_loc.col = line, col
        return c_loc

    # -- building ---------------------------------------------------------------
    def param(self, index: int) -> int:
        out = ffi.new("asc_value_t*")
        self._check(lib.asc_builder_param(self._handle, index, out))
        return int(out[0])

    def op(
        self, name: str, operands: Sequence[int] = (), attrs: Optional[dict[str, AttrValue]] = None
    ) -> Optional[int]:
        c_operands = ffi.new("asc_value_t[]", list(operands)) if operands else ffi.NULL
        if attrs and isinstance(attrs.get("dtype"), int) and attrs["dtype"] >= _FIRST_NON_ELEMENT_CODE:
            self._refuse_dtype(attrs["dtype"])
        c_attrs, n_attrs = (_encode_attrs(attrs), len(attrs)) if attrs else (ffi.NULL, 0)
        name_b = _text(name)
        result = self._result
        status = _builder_op(self._handle, name_b, len(name_b), c_operands, len(operands), c_attrs, n_attrs,
                             self._location(), result)  # fmt: skip
        if status:
            self._check(status)
        return None if result[0] == NO_VALUE else int(result[0])

    def _refuse_dtype(self, code: int) -> None:
        """A dtype of pyasc's that no platform of the Model has (float64, the fp8 types) reaching the IR."""
        from ..language.core import dtype as dt

        d = next((t for t in (dt.float64, dt.void, *dt.FLOAT8_DTYPES) if t.code == code), None)
        raise CodegenError(dt.unsupported_reason(d) if d else f"unknown dtype code {code}", *self.loc)

    def value_type(self, value: int) -> tuple[int, int, int]:
        out = ffi.new("asc_type_t*")
        self._check(lib.asc_builder_value_type(self._handle, value, out))
        return int(out.kind), int(out.dtype), int(out.position)

    def for_begin(self, lb: int, ub: int, step: int) -> int:
        iv = ffi.new("asc_value_t*")
        self._check(lib.asc_builder_for_begin(self._handle, lb, ub, step, self._location(), iv))
        self.depth += 1
        self._region_exits.append([])
        return int(iv[0])

    def for_end(self) -> None:
        self._close_region()
        self._check(lib.asc_builder_for_end(self._handle))
        self.depth -= 1

    def if_begin(self, cond: int) -> None:
        self._check(lib.asc_builder_if_begin(self._handle, cond, self._location()))
        self.depth += 1
        self._region_exits.append([])

    def else_begin(self) -> None:
        self._close_region()
        self._region_exits.append([])
        self._check(lib.asc_builder_else(self._handle))

    def if_end(self) -> None:
        self._close_region()
        self._check(lib.asc_builder_if_end(self._handle))
        self.depth -= 1

    def at_region_end(self, build: Callable[[], None]) -> None:
        """Calls `build` (which builds ops) when the innermost open region closes: a loop's body, an if's
        branch, or the kernel's body (end_body)."""
        self._region_exits[-1].append(build)

    def end_body(self) -> None:
        """The kernel's body is built: what at_region_end asked for at its top level."""
        self._close_region()

    def _close_region(self) -> None:
        for build in self._region_exits.pop():
            build()

    def set_option(self, name: str, value: int) -> None:
        encoded = name.encode("utf-8", "backslashreplace")
        self._check(lib.asc_builder_set_option(self._handle, encoded, len(encoded), int(value)))

    def finish(self):
        out = ffi.new("asc_kernel_t**")
        handle, self._handle = self._handle, None
        self._check(lib.asc_builder_finish(handle, out))
        return out[0]

    def build_log(self) -> bytes:
        """The building calls made so far, as the library records them (take it before finish())."""
        size = ffi.new("size_t*")
        lib.asc_builder_log(self._handle, ffi.NULL, 0, size)
        buf = ffi.new("char[]", size[0] + 1)
        self._check(lib.asc_builder_log(self._handle, buf, size[0] + 1, size))
        return ffi.buffer(buf, size[0])[:]

    def replay(self, log: bytes) -> None:
        """Makes the building calls a build log recorded (checked as when they were first made)."""
        self._check(lib.asc_builder_replay(self._handle, log, len(log)))

    def abandon(self) -> None:
        if self._handle is not None:
            lib.asc_builder_destroy(self._handle)
            self._handle = None


def kernel_ir_text(kernel) -> str:
    return read_text(lib.asc_kernel_print, kernel)
