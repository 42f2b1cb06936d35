"""Compilation options, as pyasc names them (``@asc.jit(insert_sync=True)``)."""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any, Optional

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
