"""The Ascend C passes (pyasc: ``asc._C.passes.ascendc``). ``add_<name>(pm)`` appends pass <name> to `pm`."""

from __future__ import annotations

from typing import Any

from ..ir import COMPILE_MIX, ENABLE_DEBUG

_PRINTING_OPS = ("printf", "dump_tensor")  # the IR ops that print


def _libasc(pm: Any, name: str) -> None:
    pm.add(name, None)


def add_detect_kernel_type(pm: Any) -> None:
    """Marks a mix kernel (cube and vector cores per block: MIX_AIC_1_1 / MIX_AIC_1_2) ``asc.compile_mix``, from
    the kernel type it was finished with, which the compiler builds it for."""

    def run(module: Any) -> None:
        if module.is_mix:
            module.set_unit_attr(COMPILE_MIX)

    pm.add("detect_kernel_type", run)


def add_detect_enable_debug(pm: Any) -> None:
    """Marks a kernel that prints (printf, dump_tensor) ``asc.enable_debug``: compiled with ASCENDC_DUMP=1."""

    def run(module: Any) -> None:
        for line in module.text().splitlines():
            op = line.strip()
            if op.startswith("%") and " = " in op:
                op = op.split(" = ", 1)[1]
            if op.split(" ", 1)[0] in _PRINTING_OPS:
                module.set_unit_attr(ENABLE_DEBUG)
                return

    pm.add("detect_enable_debug", run)


def add_declare_py_struct(pm: Any) -> None:
    """No-op: the emitter declares the kernel's struct parameters itself (libasc, src/codegen)."""
    _libasc(pm, "declare_py_struct")


def add_generate_boilerplate(pm: Any) -> None:
    """No-op: the emitter writes the includes, helpers and the ``extern "C" __global__`` entry (src/codegen)."""
    _libasc(pm, "generate_boilerplate")


def add_define_cube_only(pm: Any) -> None:
    """No-op: a matmul_cube_only kernel is finished as AIC_ONLY, and the emitter writes its kernel type."""
    _libasc(pm, "define_cube_only")


def add_legalize_kernel_args(pm: Any) -> None:
    """No-op: parameters are GM addresses and scalars in libasc's IR already, as the launcher packs them."""
    _libasc(pm, "legalize_kernel_args")


def add_privatize_func(pm: Any) -> None:
    """No-op: device functions are inlined by the Python front end; the kernel is one function."""
    _libasc(pm, "privatize_func")


def add_erase_sync(pm: Any) -> None:
    """No-op: with insert_sync libasc's sync inserter places every flag itself (src/passes/insert_sync)."""
    _libasc(pm, "erase_sync")


def add_hoist_que_bind(pm: Any) -> None:
    """No-op: TQue/TBuf are lowered to addresses and flags by libasc's framework lowering (src/passes)."""
    _libasc(pm, "hoist_que_bind")


def add_hoist_ub_allocation(pm: Any) -> None:
    """No-op: local memory is allocated by libasc (allocate_local) when the kernel is finished."""
    _libasc(pm, "hoist_ub_allocation")


def add_input_output_tensor(pm: Any) -> None:
    """No-op: libasc's framework lowering gives each queue's tensors their addresses (src/passes)."""
    _libasc(pm, "input_output_tensor")


def add_insert_sync(pm: Any) -> None:
    """No-op: sync insertion happens in libasc (src/passes, at asc_builder_finish, with insert_sync); the
    emitted Ascend C carries every set_flag/wait_flag, so bisheng runs without --cce-auto-sync."""
    _libasc(pm, "insert_sync")


def add_materialize_tensor(pm: Any) -> None:
    """No-op: local tensors are emitted at the addresses libasc placed them (static tensor programming)."""
    _libasc(pm, "materialize_tensor")


def add_unify_pipe(pm: Any) -> None:
    """No-op: each op's pipe comes from libasc's op table."""
    _libasc(pm, "unify_pipe")


def add_verify_sync(pm: Any) -> None:
    """No-op here: the Model's sanitizer checks synchronisation at run time (racecheck, synccheck)."""
    _libasc(pm, "verify_sync")
