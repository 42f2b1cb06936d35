"""The emitter's round trip (ASC_ROUNDTRIP=<report file>): every kernel the tests
launch successfully on the Model is also emitted as Ascend C, compiled with the
host compiler against test/ascendc_cpu/kernel_operator.h, run on the CPU with
copies of the launch's inputs, and its GM buffers must equal the Model's bit
for bit. A mismatch fails the test that launched the kernel. The report file
gets one JSON line per launch: the kernel, and "ok", "mismatch", or
"not covered" with the reason (an op the emitter cannot spell yet). Launches
on an asynchronous stream or one other than the thread's current stream are
not checked. Bytes that depend on on-chip memory the kernel never wrote (a
second CPU run with the memories filled with 0xff instead of 0 changes them)
are not compared: they are not defined.
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import hashlib
import json
import os
import re
import subprocess
import threading
from pathlib import Path

import cffi
import numpy as np

import asc.runtime.jit as jit
import asc.runtime.launch_plan as launch_plan
from asc._ffi import ffi, last_error, lib
from asc.lib.runtime import state

ROOT = Path(__file__).resolve().parents[2]
INCLUDE = ROOT / "test" / "ascendc_cpu"
C_TYPES = {0: "bool", 1: "int8_t", 2: "uint8_t", 3: "int16_t", 4: "uint16_t", 5: "int32_t", 6: "uint32_t",
           7: "int64_t", 8: "uint64_t", 9: "half", 10: "bfloat16_t", 11: "float"}  # fmt: skip

cpu_ffi = cffi.FFI()
cpu_ffi.cdef("""
typedef struct { uint32_t kind; uint32_t dtype; int64_t i; double f; void* ptr; uint64_t size; } asc_arg_t;
int asc_cpu_run(const char* so_path, const char* platform, int kernel_type, uint32_t block_dim, int threads, int fill,
                const asc_arg_t* args, size_t n_args, char* err, size_t err_cap);
size_t asc_cpu_last_output(char* buf, size_t cap);
void asc_cpu_set_origins(const uint64_t* addresses, const uint64_t* sizes, size_t n);
""")


FLOAT_DTYPES = {9: "float16", 11: "float32"}
_TIME_STAMP = re.compile(r"timeStamp is \d+")


def close(a: bytes, b: bytes, dtype: str) -> bool:
    x, y = np.frombuffer(a, dtype).astype(np.float64), np.frombuffer(b, dtype).astype(np.float64)
    return bool(
        np.allclose(
            x, y, rtol=1e-5 if dtype == "float32" else 1e-2, atol=1e-6 if dtype == "float32" else 1e-2, equal_nan=True
        )
    )


class MismatchError(AssertionError):
    pass


class RoundTrip:
    def __init__(self, report: Path, library: Path, work: Path):
        self.report = report
        self.cpu = cpu_ffi.dlopen(str(library))
        self.library = library
        self.work = work
        work.mkdir(parents=True, exist_ok=True)
        self.lock = threading.Lock()
        self.cpu_lock = threading.Lock()
        self.building: dict[str, threading.Lock] = {}
        self.pch: list[str] | None = None
        # a kernel's library is cached by its source and the shim it compiles against: editing the shim rebuilds
        self.shim = _tree_digest(INCLUDE, library.parent / "include")

    def record(self, kernel: str, status: str, detail: str = "") -> None:
        with self.lock, self.report.open("a") as f:
            f.write(json.dumps({"kernel": kernel, "status": status, "detail": detail}) + "\n")

    def source(self, handle) -> tuple[str | None, str]:
        size = ffi.new("size_t*")
        if lib.asc_kernel_source_expanded(handle, ffi.NULL, 0, size) not in (lib.ASC_OK, lib.ASC_ERR_BUFFER_TOO_SMALL):
            return None, last_error()[0]
        buf = ffi.new("char[]", size[0] + 1)
        if lib.asc_kernel_source_expanded(handle, buf, size[0] + 1, size) != lib.ASC_OK:
            return None, last_error()[0]
        return ffi.string(buf).decode(), ""

    def build(self, source: str, c_args, n: int) -> Path:
        name = re.search(r"__aicore__ void (\w+)\(", source).group(1)
        params = []
        for i in range(n):
            a = c_args[i]
            ctype = "GM_ADDR" if a.kind != lib.ASC_ARG_SCALAR else C_TYPES[a.dtype]
            params.append(f"*static_cast<{ctype}*>(a[{i}])")
        wrapper = (
            f'#include "kernel.cpp"\nextern "C" void asc_cpu_entry(void* const* a) {{ {name}({", ".join(params)}); }}\n'
        )
        digest = hashlib.sha256((self.shim + source + wrapper).encode()).hexdigest()[:24]
        with self.lock:
            building = self.building.setdefault(digest, threading.Lock())
        # Threads launching the same kernel at once build it once: a second writer would truncate the
        # sources under the first one's compiler, which then builds an empty library.
        with building:
            return self.compile(name, digest, source, wrapper)

    def compiler(self) -> list[str]:
        # the vector shims kernel_operator.h includes are generated beside libasc_cpu.so (test/CMakeLists.txt)
        generated = self.library.parent / "include"
        return ["g++", "-std=c++17", "-O0", "-fwrapv", "-fPIC", "-Werror=return-type", f"-I{INCLUDE}",
                f"-I{generated}"]  # fmt: skip

    def precompiled_header(self) -> list[str]:
        """The options that include kernel_operator.h precompiled, built once per run: parsing it is most of
        a kernel's compile (about 0.45 of 0.7 s), and the suite compiles some two thousand."""
        with self.lock:
            if self.pch is None:
                stem = self.work / f"pch-{os.getpid()}" / "kernel_operator.h"
                stem.parent.mkdir(exist_ok=True)
                cmd = self.compiler() + ["-x", "c++-header", str(INCLUDE / "kernel_operator.h"), "-o", f"{stem}.gch"]
                done = subprocess.run(cmd, capture_output=True, text=True)
                # without it each kernel parses the header itself: slower, not wrong
                self.pch = ["-include", str(stem), "-Winvalid-pch"] if done.returncode == 0 else []
            return self.pch

    def compile(self, name: str, digest: str, source: str, wrapper: str) -> Path:
        out = self.work / f"{digest}.so"
        if out.exists():
            return out
        # pytest's worker processes (-n) share the work directory: each writes its sources in a directory of its own
        d = self.work / f"{digest}-{os.getpid()}"
        d.mkdir(exist_ok=True)
        (d / "kernel.cpp").write_text(source)
        (d / "entry.cpp").write_text(wrapper)
        tmp = d / "kernel.so"
        cmd = self.compiler() + self.precompiled_header() + ["-shared", str(d / "entry.cpp"), "-o", str(tmp)]
        cmd += [str(self.library), f"-Wl,-rpath,{self.library.parent}"]
        done = subprocess.run(cmd, capture_output=True, text=True)
        if done.returncode:
            raise MismatchError(f"the emitted Ascend C for {name} does not compile ({d / 'kernel.cpp'}):\n"
                                f"{done.stderr[-3000:]}")  # fmt: skip
        os.replace(tmp, out)
        return out

    def run_cpu(self, name, so, platform, kernel_type, core_num, threads, c_args, n, segment, inputs, fill):
        """Runs the compiled kernel on copies of the inputs; returns the copies and what it printed."""
        # Each GM buffer as the board's allocator gives it (the Model's gm_memory.h): the caller's bytes, then
        # the rest of the allocator's segment, reading as the Model's poison.
        copies = [None if data is None else _padded_copy(data, segment) for data in inputs]
        args = cpu_ffi.new("asc_arg_t[]", max(1, n))
        for i in range(n):
            a, b = args[i], c_args[i]
            a.kind, a.dtype, a.i, a.f, a.size = b.kind, b.dtype, b.i, b.f, b.size
            a.ptr = copies[i] if copies[i] is not None else cpu_ffi.NULL
            if copies[i] is not None:
                a.size = len(copies[i])
        err = cpu_ffi.new("char[]", 4096)
        # where the copies came from: a GM address a buffer holds (a ListTensorDesc's) moves to the copy
        addresses = [int(ffi.cast("uintptr_t", c_args[i].ptr)) if copies[i] is not None else 0 for i in range(n)]
        sizes = [c_args[i].size if copies[i] is not None else 0 for i in range(n)]
        with self.cpu_lock:  # the CPU library keeps one last output: run and read it as one step
            self.cpu.asc_cpu_set_origins(addresses or [0], sizes or [0], n)
            rc = self.cpu.asc_cpu_run(str(so).encode(), platform.encode(), kernel_type, core_num, threads, fill, args,
                                      n, err, 4096)  # fmt: skip
            size = self.cpu.asc_cpu_last_output(cpu_ffi.NULL, 0)
            text = cpu_ffi.new("char[]", size + 1)
            self.cpu.asc_cpu_last_output(text, size + 1)
        output = cpu_ffi.string(text).decode(errors="replace")
        if rc != 0:
            message = cpu_ffi.string(err).decode()
            self.record(name, "mismatch", f"the CPU run failed: {message}")
            raise MismatchError(f"{name}: the emitted Ascend C failed on the CPU where the Model ran it: {message}")
        return copies, output

    def launch(self, real, handle, stream_handle, core_num, c_args, n):
        current = state.current_stream()
        if current.handle != stream_handle or current.asynchronous or current.device.backend == "NPU":
            return real(handle, stream_handle, core_num, c_args, n)
        if _paused:
            status = real(handle, stream_handle, core_num, c_args, n)
            self.record(name_of(handle), "not covered", _paused[-1])
            return status
        inputs = []
        for i in range(n):
            a = c_args[i]
            inputs.append(bytes(ffi.buffer(a.ptr, a.size)) if a.kind == lib.ASC_ARG_BUFFER and a.size else None)
        status = real(handle, stream_handle, core_num, c_args, n)
        if status != lib.ASC_OK:
            return status
        source, why = self.source(handle)
        if source is None:
            self.record(name_of(handle), "not covered", why)
            return status
        name = re.search(r"__aicore__ void (\w+)\(", source).group(1)
        try:
            so = self.build(source, c_args, n)
        except MismatchError as e:
            self.record(name, "mismatch", str(e))
            raise
        kernel_type = int(re.search(r"// KernelType (\d+)", source).group(1))
        # cores that wait for each other run at once
        threads = int(
            re.search(r"\b(CrossCore\w+|SyncAll|IBSet|IBWait|NotifyNextBlock|WaitPreBlock)\b", source) is not None
        )
        # The whole segment of the board's allocator behind each buffer only when the Model's launch reached it
        # (its memcheck warning says so): megabytes per buffer otherwise, for every launch of the suite.
        segment = "caching allocator's" in read_warnings(current.handle)
        run = functools.partial(
            self.run_cpu, name, so, current.device.platform, kernel_type, core_num, threads, c_args, n, segment
        )
        copies, cpu_output = run(inputs, 0)
        # The Model's clock and program counter have no CPU counterpart: such a kernel is compiled and run, and
        # its results are not compared.
        clocked = re.search(r"\b(GetSystemCycle|GetProgramCounter)\(", source)
        if clocked:
            self.record(name, "not covered", f"reads {clocked.group(1)}, which a CPU run cannot reproduce")
            return status
        # Blocks adding floats into the same GM atomically round in the order they run, which the Model's threads
        # do not fix: those buffers are compared as numbers, to float32 rounding.
        unordered = core_num > 1 and re.search(r"SetAtomic(Add|Type)<(float|half|bfloat16_t)>", source) is not None
        undefined = None  # bytes that change with the on-chip memories' initial contents
        skipped = 0
        for i in range(n):
            if copies[i] is None:
                continue
            model = bytes(ffi.buffer(c_args[i].ptr, c_args[i].size))
            cpu = bytes(cpu_ffi.buffer(copies[i], c_args[i].size))
            if model == cpu:
                continue
            if unordered and c_args[i].dtype in FLOAT_DTYPES and close(model, cpu, FLOAT_DTYPES[c_args[i].dtype]):
                continue
            if undefined is None:  # a second run, the memories filled with 0xff instead of 0
                again, _ = run(inputs, 0xFF)
                undefined = [None if c is None else bytes(cpu_ffi.buffer(c, len(d))) for c, d in zip(again, inputs)]
            differs = [j for j in range(len(model)) if model[j] != cpu[j] and cpu[j] == undefined[i][j]]
            skipped += sum(1 for j in range(len(model)) if cpu[j] != undefined[i][j])
            if differs:
                first = differs[0]
                detail = f"argument {i} differs from byte {first} (Model {model[first]:#x}, CPU {cpu[first]:#x})"
                self.record(name, "mismatch", detail)
                raise MismatchError(f"{name}: the emitted Ascend C and the Model disagree: {detail}")
        model_output = read_output(current.handle)
        # print_time_stamp's cycle is the Model's timeline; the CPU run has none of its own to agree with
        cpu_output, model_output = (_TIME_STAMP.sub("timeStamp is <cycle>", t) for t in (cpu_output, model_output))
        if cpu_output != model_output:
            detail = f"printed {cpu_output[:300]!r} where the Model printed {model_output[:300]!r}"
            self.record(name, "mismatch", detail)
            raise MismatchError(f"{name}: the emitted Ascend C {detail}")
        # a kernel whose output (in part) comes from on-chip memory it never wrote: those bytes are not defined
        self.record(name, "ok", f"{skipped} bytes depend on uninitialised on-chip memory" if skipped else "")
        return status


def _tree_digest(*roots: Path) -> str:
    """A digest of every file under `roots` (their paths and contents)."""
    h = hashlib.sha256()
    for root in roots:
        for f in sorted(p for p in root.rglob("*") if p.is_file()):
            h.update(str(f).encode())
            h.update(f.read_bytes())
    return h.hexdigest()


def _board_reach(n: int) -> int:
    """The bytes from a buffer's start the board's kernel can touch (the Model's sim::board_reach_bytes): the
    segment torch_npu's caching allocator maps for an n-byte request, 0 for 0."""
    mib = 1 << 20
    if n == 0:
        return 0
    block = (n + 32 + 511) // 512 * 512
    if block <= mib:
        return 2 * mib
    if block < 10 * mib:
        return 20 * mib
    return -(-block // (2 * mib)) * 2 * mib


def _padded_copy(data: bytes, segment: bool):
    """A CPU buffer holding `data`, then the padding of its allocation (aclrtMalloc: ALIGN_UP(n, 32) + 32) or,
    with `segment`, the rest of the segment the board's allocator would map for it, filled with the Model's
    padding poison (0xFF): a kernel straying past its tensor runs alike on both."""
    reach = _board_reach(len(data)) if segment else (len(data) + 31) // 32 * 32 + 32
    buf = cpu_ffi.new("char[]", reach)
    cpu_ffi.memmove(buf, data, len(data))
    ctypes.memset(int(cpu_ffi.cast("uintptr_t", buf)) + len(data), 0xFF, reach - len(data))
    return buf


def _stream_text(read, stream_handle) -> str:
    """What `read` (asc_stream_last_output / _warnings) gives for the stream's last launch."""
    size = ffi.new("size_t*")
    read(stream_handle, ffi.NULL, 0, size)
    buf = ffi.new("char[]", size[0] + 1)
    read(stream_handle, buf, size[0] + 1, size)
    return ffi.string(buf).decode(errors="replace")


def read_warnings(stream_handle) -> str:
    return _stream_text(lib.asc_stream_last_warnings, stream_handle)


def read_output(stream_handle) -> str:
    return _stream_text(lib.asc_stream_last_output, stream_handle)


def name_of(handle) -> str:
    text = ffi.new("char[]", 256)
    size = ffi.new("size_t*")
    lib.asc_kernel_print(handle, text, 256, size)
    m = re.match(r"kernel @(\w+)", ffi.string(text).decode(errors="replace"))
    return m.group(1) if m else "?"


class _LibProxy:
    """`lib` for jit.py, with asc_launch_with_stats going through the round trip."""

    def __init__(self, launch_with_stats):
        self.asc_launch_with_stats = launch_with_stats

    def __getattr__(self, name):
        return getattr(lib, name)


_paused: list[str] = []  # why launches are not run on the CPU now (roundtrip.paused)


@contextlib.contextmanager
def paused(reason: str):
    """Launches in the block run on the Model only, reported as not covered for `reason`."""
    _paused.append(reason)
    try:
        yield
    finally:
        _paused.pop()


def install(report: str) -> None:
    library = Path(os.environ.get("ASC_CPU_LIBRARY", ROOT / "build" / "test" / "ascendc_cpu" / "libasc_cpu.so"))
    work = Path(os.environ.get("ASC_ROUNDTRIP_WORK", Path(report).with_suffix(".work")))
    trip = RoundTrip(Path(report), library, work)
    real = lib.asc_launch_with_stats

    def launch_with_stats(handle, stream_handle, core_num, c_args, n, stats):
        def run(h, s, c, a, k):
            return real(h, s, c, a, k, stats)

        return trip.launch(run, handle, stream_handle, core_num, c_args, n)

    def launch_call(request):  # asc_launch_call: the same launch, its arguments in the plan's request block
        return launch_with_stats(request.kernel, request.stream, request.block_dim, request.args, request.n_args,
                                 request.stats)  # fmt: skip

    # Every launch of the package goes through these two (the slow path's call and the plans' call).
    assert hasattr(launch_plan, "_asc_launch_call"), "the launch fast path no longer calls what is hooked here"
    jit.lib = _LibProxy(launch_with_stats)
    launch_plan._asc_launch_call = launch_call
