"""A finished kernel as the module the compile stages work on (pyasc: ``asc._C.ir.ModuleOp``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional

from .._ffi import ffi, last_error, lib, read_text

# The unit attributes passes set on a module and the compiler reads (pyasc's names).
COMPILE_MIX = "asc.compile_mix"  # the kernel runs on cube and vector cores (a mix kernel)
ENABLE_DEBUG = "asc.enable_debug"  # the kernel prints (printf / dump_tensor)

_MIX_KERNEL_TYPES = {6, 7}  # MIX_AIC_1_1, MIX_AIC_1_2: one cube and one or two vector cores per block


class Context:
    """What pyasc's passes are created in (an MLIR context). libasc needs none: kernels own their IR."""


@dataclass(frozen=True)
class KernelArgument:
    """One parameter of the kernel, in the order of its C parameter list."""

    index: int
    type: str  # its IR type, e.g. "!gm_addr<f16>", "i32"
    writes: bool  # the kernel may write through it (asc_kernel_param_writes)


class KernelModule:
    """A finished kernel (an ``asc_kernel_t*`` from ``asc_builder_finish``) as a module.

    ``op`` is the module's operation (``op.has_unit_attr(name)``), as in pyasc; passes set attributes on it.
    """

    def __init__(self, handle: Any, name: Optional[str] = None):
        self.handle = handle
        self.attributes: set[str] = set()
        self.strip_loc = False  # set by passes.common.add_strip_debug_info: no #line in the Ascend C
        self._context = Context()
        text = self.text()
        header = text.split("(", 1)[0]  # "kernel @name"
        self.name = name or header.rsplit("@", 1)[-1].strip()

    @property
    def op(self) -> KernelModule:
        return self

    def has_unit_attr(self, name: str) -> bool:
        return name in self.attributes

    def set_unit_attr(self, name: str) -> None:
        self.attributes.add(name)

    def get_context(self) -> Context:
        return self._context

    def option(self, name: str) -> int:
        """A compilation option the kernel was finished with (asc_kernel_option)."""
        out = ffi.new("int64_t*")
        encoded = name.encode()
        if lib.asc_kernel_option(self.handle, encoded, len(encoded), out) != lib.ASC_OK:
            raise RuntimeError(last_error()[0])
        return int(out[0])

    @property
    def kernel_type(self) -> int:
        """The kernel's KernelType value (asc.runtime.config.KernelType(value))."""
        return self.option("kernel_type")

    @property
    def is_mix(self) -> bool:
        return self.kernel_type in _MIX_KERNEL_TYPES

    def need_insert_sync(self) -> bool:
        """Whether the kernel was built with insert_sync (libasc inserted its flags when it finished it)."""
        return bool(self.option("insert_sync"))

    def text(self) -> str:
        return read_text(lib.asc_kernel_print, self.handle)

    def __str__(self) -> str:
        return self.text()


def get_kernel_arg_attrs(module: KernelModule) -> tuple[KernelArgument, ...]:
    """The kernel's parameters: their IR types (from the IR's header) and whether the kernel writes them."""
    count = ffi.new("size_t*")
    if lib.asc_kernel_param_count(module.handle, count) != lib.ASC_OK:
        raise RuntimeError(last_error()[0])
    header = module.text().split("\n", 1)[0]
    inside = header[header.index("(") + 1 : header.rindex(")")] if "(" in header else ""
    types = [p.split(":", 1)[1].strip() for p in _split_params(inside)]
    writes = ffi.new("int32_t*")
    args = []
    for i in range(count[0]):
        if lib.asc_kernel_param_writes(module.handle, i, writes) != lib.ASC_OK:
            raise RuntimeError(last_error()[0])
        args.append(KernelArgument(i, types[i] if i < len(types) else "", bool(writes[0])))
    return tuple(args)


def _split_params(text: str) -> list[str]:
    """The parameters of "%0: !gm_addr<f16>, %1: i32" (commas inside <...> do not split)."""
    params, depth, start = [], 0, 0
    for i, c in enumerate(text):
        depth += c == "<"
        depth -= c == ">"
        if c == "," and depth == 0:
            params.append(text[start:i])
            start = i + 1
    if text[start:].strip():
        params.append(text[start:])
    return [p for p in params if ":" in p]
