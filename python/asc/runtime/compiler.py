"""Compilation options, as pyasc names them (``@asc.jit(insert_sync=True)``)."""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any, Optional

from ..lib.runtime import CoreType, get_soc_version
from .config import KernelType


@dataclass(frozen=True)
class CompileOptions:
    """What the compiler does with a kernel.

    auto_sync:      order scalar<->MTE2/MTE3/V and V<->V dependences (default, as pyasc)
    insert_sync:    insert every set_flag/wait_flag the kernel needs (implied by LocalTensorAuto)
    always_compile: recompile on every launch instead of using the cache
    kernel_type:    the cores the blocks run on (KernelType; AIV_ONLY by default,
                    AIC_ONLY with matmul_cube_only=True)
    opt_level, debug, ...: accepted and recorded
    """

    auto_sync: Optional[bool] = True
    insert_sync: Optional[bool] = None
    always_compile: bool = False
    opt_level: Optional[int] = 3
    kernel_type: Optional[KernelType] = None
    debug: bool = False
    strip_loc: bool = False
    verify_sync: bool = False
    print_ir_before_all: bool = False
    run_passes: bool = True
    auto_sync_log: Optional[str] = ""
    bisheng_options: Optional[tuple] = None
    matmul_cube_only: bool = False


@dataclass(frozen=True)
class CodegenOptions:
    capture_exceptions: bool = True
    ir_multithreading: bool = True
    # loops that load tiles run their iterations in pairs, each taking one half of every load's two buffers
    # (the tile API, asc2, sets it)
    double_buffer: bool = False


OPTION_NAMES = {f.name for f in fields(CompileOptions)} | {f.name for f in fields(CodegenOptions)}


def split_options(options: dict[str, Any]) -> tuple[CompileOptions, CodegenOptions]:
    unknown = sorted(set(options) - OPTION_NAMES)
    if unknown:
        raise TypeError(f"unknown @asc.jit option(s): {', '.join(unknown)} (known: {', '.join(sorted(OPTION_NAMES))})")
    compile_fields = {f.name for f in fields(CompileOptions)}
    return (
        CompileOptions(**{k: v for k, v in options.items() if k in compile_fields}),
        CodegenOptions(**{k: v for k, v in options.items() if k not in compile_fields}),
    )


def core_type_of(kernel_type: Optional[KernelType]) -> CoreType:
    """The cores a kernel of this type is launched on: mixed cube+vector kernels on AI cores, the rest on the
    vector or cube cores they use (AIV_ONLY when no type is given)."""
    if kernel_type in (KernelType.MIX_AIC_1_1, KernelType.MIX_AIC_1_2):
        return CoreType.AiCore
    if kernel_type in (KernelType.AIC_ONLY, KernelType.MIX_AIC_HARD_SYNC, KernelType.MIX_AIC_1_0):
        return CoreType.CubeCore
    return CoreType.VectorCore


def option_problems(options: CompileOptions) -> list[str]:
    """What is wrong with `options` (empty when they are valid)."""
    problems = []
    if options.opt_level not in (1, 2, 3):
        problems.append(f"opt_level must be 1, 2 or 3, got {options.opt_level!r}")
    if options.kernel_type is not None and not isinstance(options.kernel_type, KernelType):
        problems.append(f"kernel_type must be an asc.runtime.config.KernelType, got {options.kernel_type!r}")
    return problems


class Compiler:
    """pyasc's compiler entry point: checks the options for the current SoC. asc builds a kernel at its first
    launch (asc.jit), from Python, so there is no separate MLIR module to run() through bisheng."""

    def __init__(self, options: Optional[CompileOptions] = None):
        self.options = CompileOptions() if options is None else options
        problems = option_problems(self.options)
        if problems:
            raise RuntimeError(f"Please check input compile option: {'; '.join(problems)}")
        self.soc_version = get_soc_version()
        self.core_type = core_type_of(self.options.kernel_type)

    def run(self, module: Any, fn_name: str) -> Any:
        raise NotImplementedError(
            f"Compiler.run({fn_name!r}): asc has no MLIR module stage (pyasc's asc._C); kernels are built from "
            "Python at their first launch: decorate the function with @asc.jit and launch it"
        )
