"""A thin Python face on the C ABI's kernel builder."""

from __future__ import annotations

from typing import Optional, Sequence, Union

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


class IRBuilder:
    """Builds one kernel through the C ABI. With `log`, every building call is also recorded there as
    plain tuples (what the disk cache keeps): replay() makes the same calls again, which rebuilds the same
    kernel, verified and lowered again by the library, without the Python front end."""

    def __init__(self, name: str, params: Sequence[tuple[int, int, int]], file: str, line: int,
                 log: Optional[list] = None):  # fmt: skip
        self.log = log
        self.loc: tuple[str, int, int] = (file, line, 0)
        # The name an assignment is binding, for diagnostics (LocalTensor names).
        self.pending_name: Optional[str] = None
        self.current_pipe = None  # the TPipe created last, for asc.get_tpipe_ptr()
        self.prints = False  # printf / dump_tensor emitted: the launch reads the output
        self.uses_matmul = False  # register_matmul emitted: MIX_AIC_1_2 unless a kernel type was given
        types = ffi.new("asc_type_t[]", max(1, len(params)))
        for i, (kind, dtype, position) in enumerate(params):
            types[i].kind, types[i].dtype, types[i].position = kind, dtype, position
        encoded = name.encode()
        out = ffi.new("asc_builder_t**")
        self._check(lib.asc_build_kernel(_shared_module(), encoded, len(encoded), types, len(params), out))
        self._handle = out[0]
        self._loc_file = b""
        self._c_loc = ffi.new("asc_loc_t*")

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
        encoded = file.encode()
        if encoded != self._loc_file:
            self._loc_file = encoded
            self._loc_buf = ffi.new("char[]", encoded)
        self._c_loc.file, self._c_loc.file_len = self._loc_buf, len(encoded)
        self._c_loc.line, self._c_loc.col = line, col
        return self._c_loc

    # -- building ---------------------------------------------------------------
    def param(self, index: int) -> int:
        if self.log is not None:
            self.log.append(("param", index))
        out = ffi.new("asc_value_t*")
        self._check(lib.asc_builder_param(self._handle, index, out))
        return int(out[0])

    def op(
        self, name: str, operands: Sequence[int] = (), attrs: Optional[dict[str, AttrValue]] = None
    ) -> Optional[int]:
        if self.log is not None:
            self.log.append(("op", name, tuple(operands), tuple((attrs or {}).items()), self.loc))
        encoded = name.encode()
        c_operands = ffi.new("asc_value_t[]", list(operands)) if operands else ffi.NULL
        keep = []
        c_attrs = ffi.NULL
        if attrs:
            c_attrs = ffi.new("asc_attr_t[]", len(attrs))
            for i, (key, value) in enumerate(attrs.items()):
                key_b = ffi.new("char[]", key.encode())
                keep.append(key_b)
                c_attrs[i].name, c_attrs[i].name_len = key_b, len(key)
                if isinstance(value, str):
                    s = ffi.new("char[]", value.encode())
                    keep.append(s)
                    c_attrs[i].kind, c_attrs[i].s, c_attrs[i].s_len = lib.ASC_ATTR_STRING, s, len(value.encode())
                elif isinstance(value, float):
                    c_attrs[i].kind, c_attrs[i].f = lib.ASC_ATTR_FLOAT, value
                else:
                    c_attrs[i].kind, c_attrs[i].i = lib.ASC_ATTR_INT, int(value)
        result = ffi.new("asc_value_t*")
        self._check(
            lib.asc_builder_op(
                self._handle,
                encoded,
                len(encoded),
                c_operands,
                len(operands),
                c_attrs,
                len(attrs or ()),
                self._location(),
                result,
            )
        )
        return None if result[0] == NO_VALUE else int(result[0])

    def value_type(self, value: int) -> tuple[int, int, int]:
        out = ffi.new("asc_type_t*")
        self._check(lib.asc_builder_value_type(self._handle, value, out))
        return int(out.kind), int(out.dtype), int(out.position)

    def for_begin(self, lb: int, ub: int, step: int) -> int:
        if self.log is not None:
            self.log.append(("for_begin", lb, ub, step, self.loc))
        iv = ffi.new("asc_value_t*")
        self._check(lib.asc_builder_for_begin(self._handle, lb, ub, step, self._location(), iv))
        return int(iv[0])

    def for_end(self) -> None:
        if self.log is not None:
            self.log.append(("for_end",))
        self._check(lib.asc_builder_for_end(self._handle))

    def if_begin(self, cond: int) -> None:
        if self.log is not None:
            self.log.append(("if_begin", cond, self.loc))
        self._check(lib.asc_builder_if_begin(self._handle, cond, self._location()))

    def else_begin(self) -> None:
        if self.log is not None:
            self.log.append(("else_begin",))
        self._check(lib.asc_builder_else(self._handle))

    def if_end(self) -> None:
        if self.log is not None:
            self.log.append(("if_end",))
        self._check(lib.asc_builder_if_end(self._handle))

    def set_option(self, name: str, value: int) -> None:
        if self.log is not None:
            self.log.append(("set_option", name, int(value)))
        encoded = name.encode()
        self._check(lib.asc_builder_set_option(self._handle, encoded, len(encoded), int(value)))

    def finish(self):
        out = ffi.new("asc_kernel_t**")
        handle, self._handle = self._handle, None
        self._check(lib.asc_builder_finish(handle, out))
        return out[0]

    def replay(self, log: Sequence[tuple]) -> None:
        """Makes the building calls `log` recorded (with their source locations)."""
        for record in log:
            kind = record[0]
            if kind == "op":
                _, name, operands, attrs, self.loc = record
                self.op(name, operands, dict(attrs))
            elif kind == "param":
                self.param(record[1])
            elif kind == "for_begin":
                _, lb, ub, step, self.loc = record
                self.for_begin(lb, ub, step)
            elif kind == "if_begin":
                _, cond, self.loc = record
                self.if_begin(cond)
            elif kind == "set_option":
                self.set_option(record[1], record[2])
            elif kind in ("for_end", "else_begin", "if_end"):
                getattr(self, kind)()
            else:
                raise CodegenError(f"unknown record {kind!r} in a cached kernel")

    def abandon(self) -> None:
        if self._handle is not None:
            lib.asc_builder_destroy(self._handle)
            self._handle = None


def kernel_ir_text(kernel) -> str:
    return read_text(lib.asc_kernel_print, kernel)
