"""Compilation options, as pyasc names them (``@asc.jit(insert_sync=True)``), and the NPU build.

``Compiler(options).run(module, name)`` builds a finished kernel for the NPU as pyasc's compiler does: the
pass pipeline (``asc._C.passes``), the Ascend C (``asc._C.translation.ir_to_ascendc``), then bisheng through
``subprocess.Popen``: one object per core type the kernel runs on (a mix kernel: a cube and a vector object),
linked into the device binary ACL loads. Every NPU device the package creates builds its kernels with it
(``build_for_npu``, installed with ``asc_device_set_npu_compiler``); docs/npu.md.
"""

from __future__ import annotations

import hashlib
import os
import shlex
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any, Optional

from .. import _C
from ..lib.runtime import CoreType, get_soc_version
from ..lib.runtime import state as _rt_state
from ..lib.runtime.platforms import platform_to_arch
from .config import KernelType, Platform


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
    # the tile API whose operator meanings the kernel's tiles take where two APIs over asc2 differ ("" for asc2's
    # own; asc.experimental.asctile sets "asctile"): see asc2.dialect
    tile_dialect: str = ""
    # vector sub-blocks per cube core in a tile kernel that hands matmul results to the vector cores (asctile's
    # cv_ratio): 1 runs it as MIX_AIC_1_1, 2 as MIX_AIC_1_2 (asc2.handover)
    cv_ratio: int = 1


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


SOURCE_NAME = "kernel.cpp"  # the Ascend C, in the build directory
BINARY_NAME = "kernel.o"  # the device binary ACL loads
OUTPUT_LIMIT = 2500  # characters of a failed command's output kept in its error (the end of it)

_AIV_TYPES = (KernelType.AIV_ONLY, KernelType.MIX_AIV_HARD_SYNC, KernelType.MIX_AIV_1_0)
_MIX_TYPES = (KernelType.MIX_AIC_1_1, KernelType.MIX_AIC_1_2)
_STATUS_BACKEND_UNAVAILABLE = 9  # asc_status_t ASC_ERR_BACKEND_UNAVAILABLE


class CompilerNotFoundError(RuntimeError):
    """No bisheng (or no linker) to build with: what to install or set."""

    status = _STATUS_BACKEND_UNAVAILABLE  # what a launch on the NPU fails with


@dataclass(frozen=True)
class CompiledKernel:
    """A kernel built for the NPU: the device binary's bytes, and where it is kept with a cache directory."""

    binary: Optional[bytes] = None
    core_type: CoreType = CoreType.VectorCore
    enable_debug: bool = False
    kernel_args: Optional[tuple] = None
    path: Optional[Path] = None  # the binary in the cache (Compiler(cache_dir=...)), else None
    commands: tuple = ()  # the commands that built it (each a tuple of arguments; run in the build directory)


def aicore_arch(soc_version: str) -> str:
    """The AI Core architecture bisheng targets for a SoC: Atlas A2/A3 (Ascend910B*, Ascend910_93) are
    dav-c220 and Ascend 950 (Ascend910_95*, Ascend950PR_*) dav-c310, whose cube and vector cores are compiled
    separately (-cube, -vec)."""
    try:
        return f"dav-{platform_to_arch(soc_version).value}"
    except ValueError:
        raise RuntimeError(f"Backend.NPU: no AI Core architecture is known for platform {soc_version}") from None


def _devkits(home: str) -> list[Path]:
    machine = f"{os.uname().machine}-linux"
    return [Path(home) / sub for sub in (machine, "tools", "compiler", "ascendc_devkit")]


def _executable(path: Path) -> bool:
    return path.is_file() and os.access(path, os.X_OK)


def find_compiler() -> tuple[str, Optional[Path]]:
    """bisheng and the CANN devkit it belongs to (the Ascend C headers): $PYASC_COMPILER or bisheng on the
    PATH (CANN's set_env.sh puts it there), else <devkit>/ccec_compiler/bin/bisheng under $ASCEND_HOME_PATH."""
    found = shutil.which(os.environ.get("PYASC_COMPILER", "bisheng"))
    home = os.environ.get("ASCEND_HOME_PATH", "")
    if found is not None:
        parent = Path(found).resolve().parent
        if parent.name == "bin" and parent.parent.name == "ccec_compiler":
            return found, parent.parent.parent
        devkit = next((d for d in _devkits(home) if (d / "ccec_compiler").is_dir()), None) if home else None
        return found, devkit
    if not home:
        raise CompilerNotFoundError(
            "Backend.NPU compiles kernels with the CANN toolkit's bisheng, and ASCEND_HOME_PATH is not set: "
            "install CANN (8.0 or newer) and `source <CANN>/set_env.sh`, or use Backend.Model "
            "(PYASC_COMPILER names another compiler)"
        )
    for devkit in _devkits(home):
        bisheng = devkit / "ccec_compiler" / "bin" / "bisheng"
        if _executable(bisheng):
            return str(bisheng), devkit
    raise CompilerNotFoundError(
        f"Backend.NPU: no bisheng under ASCEND_HOME_PATH={home} (looked for <{os.uname().machine}-linux|tools|"
        "compiler|ascendc_devkit>/ccec_compiler/bin/bisheng); install the CANN toolkit there or point "
        "ASCEND_HOME_PATH at it"
    )


def find_linker(compiler: str) -> str:
    """The linker of device objects: $PYASC_LINKER or ld.lld on the PATH, else the ld.lld next to bisheng."""
    found = shutil.which(os.environ.get("PYASC_LINKER", "ld.lld"))
    if found is not None:
        return found
    beside = Path(compiler).parent / "ld.lld"
    if _executable(beside):
        return str(beside)
    raise CompilerNotFoundError(
        f"Backend.NPU: no ld.lld to link the kernel's objects (not on the PATH, not next to {compiler}); "
        "PYASC_LINKER names the linker"
    )


def _text(out: Any) -> str:
    if out is None:
        return ""
    return out.decode("utf-8", "replace") if isinstance(out, bytes) else str(out)


class Compiler:
    """pyasc's compiler: checks the options, then ``run(module, name)`` builds a finished kernel
    (an ``asc._C.ir.KernelModule``) for the NPU and returns a CompiledKernel.

    The stages are called through ``asc._C``'s modules (patchable): the passes, ``translation.ir_to_ascendc``,
    ``ir.get_kernel_arg_attrs``; then bisheng per core type and ld.lld, each through ``subprocess.Popen`` in the
    build directory. With ``cache_dir`` the binary is kept in ``cache_dir/<hash of source and commands>/`` and a
    second build of the same source is read from there without running anything.
    """

    def __init__(self, options: Optional[CompileOptions] = None, cache_dir: Optional[Path] = None):
        self.options = CompileOptions() if options is None else options
        problems = option_problems(self.options)
        if problems:
            raise RuntimeError(f"Please check input compile option: {'; '.join(problems)}")
        self.soc_version = get_soc_version()
        self.core_type = core_type_of(self.options.kernel_type)
        self.cache_dir = None if cache_dir is None else Path(cache_dir)
        self.kernel_type: Optional[KernelType] = self.options.kernel_type
        self.enable_debug = False
        # Looked up now (as pyasc does), reported by run: a Compiler for its options alone needs no CANN.
        self.compiler, self.devkit, self.linker = "bisheng", None, "ld.lld"
        self._missing: Optional[CompilerNotFoundError] = None
        try:
            self.compiler, self.devkit = find_compiler()
            self.linker = find_linker(self.compiler)
        except CompilerNotFoundError as e:
            self._missing = e

    # -- the stages ----------------------------------------------------------------------
    def run(self, module: Any, fn_name: str) -> CompiledKernel:
        """Passes, Ascend C, bisheng: the kernel's device binary."""
        if self.options.run_passes:
            self.run_passes(module)
        self.kernel_type = self._kernel_type_of(module)
        self.core_type = core_type_of(self.kernel_type)
        self.enable_debug = bool(module.op.has_unit_attr(_C.ir.ENABLE_DEBUG)) and (
            os.environ.get("ASCENDC_DUMP", "True").lower() == "true"
        )
        source = _C.translation.ir_to_ascendc(module)
        kernel_args = _C.ir.get_kernel_arg_attrs(module)
        return self.run_compilation(source, fn_name, kernel_args)

    def run_passes(self, module: Any) -> None:
        pm = _C.passes.PassManager(module.get_context())
        pm.enable_verifier()
        if self.options.print_ir_before_all:
            pm.enable_printing()
        insert_sync = self.options.insert_sync
        if insert_sync is None:
            insert_sync = module.need_insert_sync()
        self._schedule_passes(pm, bool(insert_sync))
        pm.run(module)

    def _schedule_passes(self, pm: Any, insert_sync: bool) -> None:
        ascendc, common = _C.passes.ascendc, _C.passes.common
        # What libasc's front end and passes did when the kernel was finished (no-ops here, listed).
        for add in (common.add_inliner, ascendc.add_privatize_func, common.add_symbol_dce,
                    common.add_reconcile_unrealized_casts, ascendc.add_input_output_tensor,
                    ascendc.add_hoist_ub_allocation, ascendc.add_materialize_tensor, ascendc.add_unify_pipe,
                    common.add_canonicalizer, common.add_cse, common.add_licm, common.add_sccp):  # fmt: skip
            add(pm)
        if insert_sync:
            ascendc.add_erase_sync(pm)
            ascendc.add_hoist_que_bind(pm)
            ascendc.add_insert_sync(pm)
        # Before the emitter writes it.
        ascendc.add_declare_py_struct(pm)
        ascendc.add_generate_boilerplate(pm)
        if self.options.matmul_cube_only:
            ascendc.add_define_cube_only(pm)
        ascendc.add_legalize_kernel_args(pm)
        ascendc.add_detect_kernel_type(pm)
        ascendc.add_detect_enable_debug(pm)
        if self.options.verify_sync:
            ascendc.add_verify_sync(pm)
        if self.options.strip_loc:
            common.add_strip_debug_info(pm)

    def _kernel_type_of(self, module: Any) -> KernelType:
        """The options' kernel type, else the one the kernel was finished with; the two must agree (the
        emitted Ascend C declares the kernel's)."""
        finished = KernelType(module.kernel_type) if isinstance(module, _C.ir.KernelModule) else None
        wanted = self.options.kernel_type
        if wanted is not None and finished is not None and wanted != finished:
            raise RuntimeError(
                f"kernel '{module.name}' was built as {finished.name}; it cannot be compiled as {wanted.name}"
            )
        return wanted or finished or KernelType.AIV_ONLY

    # -- bisheng -------------------------------------------------------------------------
    def objects(self) -> list[tuple[str, str]]:
        """(architecture, object file) of each core type the kernel runs on: cube and vector for a mix kernel."""
        arch = aicore_arch(self.soc_version.value)
        kernel_type = self.kernel_type or KernelType.AIV_ONLY
        if kernel_type in _MIX_TYPES:
            return [(f"{arch}-cube", "kernel_aic.o"), (f"{arch}-vec", "kernel_aiv.o")]
        if kernel_type in _AIV_TYPES:
            return [(f"{arch}-vec", "kernel_aiv.o")]
        return [(f"{arch}-cube", "kernel_aic.o")]

    def compile_command(self, arch: str, obj: str) -> list[str]:
        """bisheng's command for one core type's object, relative to the build directory."""
        kernel_type = self.kernel_type or KernelType.AIV_ONLY
        cmd = [self.compiler, "-c", "-x", "cce", f"-O{self.options.opt_level}", "-std=c++17"]
        cmd += [f"--cce-aicore-arch={arch}", "--cce-aicore-only"]
        # No --cce-auto-sync: the kernel carries every flag libasc's sync inserter placed.
        if self.devkit is not None:
            for d in ("asc", "asc/include", "asc/include/basic_api", "asc/include/utils", "asc/impl/basic_api",
                      "asc/impl/utils", "tikcpp/tikcfw", "tikcpp/tikcfw/interface", "tikcpp/tikcfw/impl"):  # fmt: skip
                cmd.append(f"-I{self.devkit / d}")
        if kernel_type in _MIX_TYPES:  # one binary for the group's cube and vector cores
            cmd += ["-cce-enable-mix", "-D__MIX_CORE_MACRO__=1"]
            if kernel_type == KernelType.MIX_AIC_1_1:
                cmd.append("-D__MIX_CORE_AIC_RATION__=1")
        cmd.append(f"-DASCENDC_DUMP={1 if self.enable_debug else 0}")
        if self.options.debug:
            cmd.append("-g")
        cmd += list(self.options.bisheng_options or ())
        return cmd + [SOURCE_NAME, "-o", obj]

    def link_command(self, objects: list[str]) -> list[str]:
        return [self.linker, "-m", "aicorelinux", "-Ttext=0", *objects, "-static", "-o", BINARY_NAME]

    def commands(self) -> list[list[str]]:
        """Every command of the build, in order: one compile per core type, then the link."""
        objs = self.objects()
        return [self.compile_command(arch, obj) for arch, obj in objs] + [self.link_command([o for _, o in objs])]

    def run_compilation(self, source: str, fn_name: str, kernel_args: Optional[tuple] = None) -> CompiledKernel:
        if self._missing is not None:
            raise self._missing
        cmds = self.commands()
        done = dict(core_type=self.core_type, enable_debug=self.enable_debug, kernel_args=kernel_args,
                    commands=tuple(tuple(c) for c in cmds))  # fmt: skip
        if self.cache_dir is None:
            with tempfile.TemporaryDirectory(prefix="asc-npu-") as tmp:
                build = Path(tmp)
                (build / SOURCE_NAME).write_text(source)
                for cmd in cmds:
                    self._run(cmd, build, fn_name)
                return CompiledKernel((build / BINARY_NAME).read_bytes(), **done)
        text = "\n".join(shlex.join(c) for c in cmds)
        entry = self.cache_dir / hashlib.sha256(f"{text}\0{source}".encode()).hexdigest()[:20]
        binary = entry / BINARY_NAME
        if binary.exists() and _read(entry / SOURCE_NAME) == source and _read(entry / "commands.txt") == text:
            return CompiledKernel(binary.read_bytes(), path=binary.resolve(), **done)
        # Built in a directory of this process's: another may build the same kernel at once. A failed build's
        # directory stays, so that its command can be run again there.
        build = entry / f"build.{os.getpid()}"
        build.mkdir(parents=True, exist_ok=True)
        (build / SOURCE_NAME).write_text(source)
        for cmd in cmds:
            self._run(cmd, build, fn_name)
        (entry / SOURCE_NAME).write_text(source)
        (entry / "commands.txt").write_text(text)
        os.replace(build / BINARY_NAME, binary)
        shutil.rmtree(build, ignore_errors=True)
        return CompiledKernel(binary.read_bytes(), path=binary.resolve(), **done)

    def _run(self, cmd: list[str], cwd: Path, fn_name: str) -> None:
        """Runs one command of the build. A compile that fails is tried once more without bisheng's machine
        LICM (seen to crash on AI Core code); a command that still fails raises RuntimeError with its output,
        bisheng's version and the command to rerun."""
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, cwd=cwd)
        out, _ = proc.communicate()
        if proc.returncode == 0:
            return
        is_compile = cmd[0] == self.compiler and "-c" in cmd
        if is_compile:
            retry = cmd[:2] + ["-mllvm", "-disable-machine-licm"] + cmd[2:]
            proc = subprocess.Popen(retry, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, cwd=cwd)
            retry_out, _ = proc.communicate()
            if proc.returncode == 0:
                return
            out = retry_out if retry_out else out
        output = _text(out)
        if len(output) > OUTPUT_LIMIT:
            output = "..." + output[-OUTPUT_LIMIT:]
        what = "bisheng" if is_compile else "the link"
        raise RuntimeError(
            f"Backend.NPU: {what} failed (exit {proc.returncode}) building kernel '{fn_name}':\n{output}\n"
            f"({self._compiler_version(cwd)})\nPlease rerun (in {cwd}): {shlex.join(cmd)}"
        )

    def _compiler_version(self, cwd: Path) -> str:
        """The first line of `bisheng --version`, for the error of a failed build."""
        try:
            proc = subprocess.Popen([self.compiler, "--version"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                    cwd=cwd)  # fmt: skip
            out, _ = proc.communicate()
        except OSError as e:
            return f"{self.compiler} --version: {e}"
        lines = _text(out).strip().splitlines()
        if proc.returncode != 0 or not lines:
            return f"{self.compiler} --version failed"
        return lines[0]


def _read(path: Path) -> Optional[str]:
    try:
        return path.read_text()
    except OSError:
        return None


def npu_cache_dir() -> Path:
    """Where NPU binaries are kept: $PYASC_CACHE_DIR/npu, else ~/.cache/asc/npu."""
    root = os.environ.get("PYASC_CACHE_DIR")
    if root:
        return Path(root) / "npu"
    home = os.environ.get("HOME")
    return Path(home) / ".cache" / "asc" / "npu" if home else Path(tempfile.gettempdir()) / "asc-npu-cache"


def build_for_npu(handle: Any, platform: str) -> str:
    """What an NPU device of `platform` calls at a kernel's first launch on it: the kernel (an
    ``asc_kernel_t*``) built by Compiler for that SoC into the NPU cache; the device binary's absolute path."""
    module = _C.ir.KernelModule(handle)
    compiler = Compiler(CompileOptions(), cache_dir=npu_cache_dir())
    compiler.soc_version = Platform(platform)  # the device's SoC, whatever the current default platform is
    compiled = compiler.run(module, module.name)
    return str(compiled.path)


_rt_state.set_npu_compiler(build_for_npu)
