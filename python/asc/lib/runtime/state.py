"""The current backend, platform, device and stream of this process."""

from __future__ import annotations

import atexit
import re
import threading
import weakref
from typing import Any, Callable, Optional, Union

from ..._ffi import ffi, last_error, lib, status_name
from ...errors import kernel_error_class
from .platforms import Platform, libasc_platforms, to_platform

_lock = threading.Lock()
# Asynchronous streams, drained when the interpreter exits (before the library's threads and statics go).
_async_streams: weakref.WeakSet[Stream] = weakref.WeakSet()


@atexit.register
def _drain_async_streams() -> None:
    for stream in list(_async_streams):
        if stream.handle is not None:
            lib.asc_stream_synchronize(stream.handle)  # failures are dropped: nobody is left to report them to


class Stream:
    """A stream on a device. Launches complete before they return, unless the stream is asynchronous
    (``create_stream(asynchronous=True)``): then a launch is checked and queued, the stream runs its
    launches in order on a thread of its own, and ``synchronize()`` waits for them, prints their printf
    output, warns and raises what they reported. The arrays of queued launches are kept alive until then;
    do not change them before it."""

    def __init__(self, device: _Device, asynchronous: bool = False):
        out = ffi.new("asc_stream_t**")
        _check(lib.asc_stream_create(device.handle, out))
        self.handle = out[0]
        self.device = device
        # Ctrl-C stops a running launch: the library's SIGINT handler stops it and calls Python's, which raises
        # KeyboardInterrupt once the call returns.
        _check(lib.asc_stream_set_option(self.handle, b"interrupt", 9, 1))
        self.asynchronous = False
        self.pending: list = []  # the arguments of queued launches, alive until synchronize()
        if asynchronous:
            self.set_asynchronous(True)

    def set_asynchronous(self, on: bool) -> None:
        """Queue launches (True) or run them as they are made (False; this synchronizes first)."""
        if not on and self.asynchronous:
            self.synchronize()
        _check(lib.asc_stream_set_option(self.handle, b"async", 5, int(on)))
        self.asynchronous = bool(on)
        if on:
            _async_streams.add(self)

    def set_profile_dir(self, directory: Optional[str]) -> None:
        """Write <kernel>.trace.json and <kernel>.lines.csv there after each launch (None: stop)."""
        encoded = (directory or "").encode()
        _check(lib.asc_stream_set_profile_dir(self.handle, encoded, len(encoded)))

    def set_sanitize(self, on: bool) -> None:
        """Turn the Model's sanitizer (racecheck, initcheck, synccheck, GM conflicts) on or off."""
        _check(lib.asc_stream_set_option(self.handle, b"sanitize", 8, int(on)))

    def set_strict(self, on: bool) -> None:
        """Strict mode (default: $ASC_STRICT=1): what the board runs and the Model warns about
        (asc.errors.MemcheckWarning) fails instead. A GM access into the padding of an argument's allocation
        and a local tensor used past its end raise OutOfBoundsError; blocks writing the same bytes to the
        same GM range raise GmWriteConflictError."""
        _check(lib.asc_stream_set_option(self.handle, b"strict", 6, int(on)))

    def set_max_ops(self, limit: int) -> None:
        """A block that runs more than `limit` ops (loop iterations included) fails its launch, so a loop
        that never ends is an error, not a hang. 0: no limit; the default is 2**32 (or $ASC_MAX_OPS)."""
        _check(lib.asc_stream_set_option(self.handle, b"max_ops", 7, int(limit)))

    def set_timeout(self, seconds: float) -> None:
        """A launch still running after `seconds` of wall-clock time fails (0: no limit); the default is
        60 s (or $ASC_TIMEOUT_S). Unless set, the op limit scales with it (2**32 ops at 60 s)."""
        _check(lib.asc_stream_set_option(self.handle, b"timeout_ms", 10, round(seconds * 1000)))

    def set_max_output(self, limit: int) -> None:
        """Bytes of printf / dump_tensor text one launch keeps (0: no limit); past it the text is cut, and
        says so. The default is 1 MiB (or $ASC_MAX_OUTPUT)."""
        _check(lib.asc_stream_set_option(self.handle, b"max_output", 10, int(limit)))

    def synchronize(self) -> None:
        """Waits for the stream's launches; on an asynchronous stream, reports what they printed, warned
        and failed with (the first failure: launches queued after it did not run)."""
        status = lib.asc_stream_synchronize(self.handle)
        error = _error(status, "asynchronous launch")
        if not self.asynchronous:
            if error is not None:
                raise error
            return
        launched, self.pending = bool(self.pending), []
        if launched or error is not None:
            from .async_report import report_batch

            report_batch(self, error)

    def destroy(self) -> None:
        if self.handle is not None:
            lib.asc_stream_destroy(self.handle)
            self.handle = None

    def __repr__(self) -> str:
        return f"Stream({self.device.backend}, {self.device.platform})"


# What builds a kernel for an NPU device (asc.runtime.compiler.build_for_npu, set when that module is imported):
# (the kernel handle, the device's platform name) -> the absolute path of its device binary. An exception's
# `status` attribute (an asc_status_t) is what the launch fails with, ASC_ERR_RUNTIME without one.
_npu_compiler: Optional[Callable[[Any, str], str]] = None


def set_npu_compiler(build: Optional[Callable[[Any, str], str]]) -> None:
    """Installs `build` on the NPU devices created from now on (None: libasc's own bisheng build)."""
    global _npu_compiler
    _npu_compiler = build


@ffi.callback("asc_npu_compile_fn")
def _npu_compile_callback(user_data: Any, kernel: Any, buf: Any, cap: int, length: Any) -> int:
    try:
        if _npu_compiler is None:
            raise RuntimeError("no NPU compiler is installed")
        device = ffi.from_handle(user_data)  # the _Device whose launch builds it: its SoC is the target
        text, status = _npu_compiler(kernel, device.platform), lib.ASC_OK
    except Exception as e:  # noqa: BLE001 - every failure becomes the launch's error, none crosses into C
        text, status = str(e) or type(e).__name__, int(getattr(e, "status", lib.ASC_ERR_RUNTIME))
    data = text.encode("utf-8", "replace")[: max(0, cap - 1)]
    if cap:
        ffi.memmove(buf, data, len(data))
        buf[len(data)] = b"\0"
    length[0] = len(data)
    return status


class _Device:
    def __init__(self, backend: str, platform: str, device_id: int):
        out = ffi.new("asc_device_t**")
        code = lib.ASC_BACKEND_NPU if backend == "NPU" else lib.ASC_BACKEND_MODEL
        encoded = platform.encode()
        _check(lib.asc_device_create(code, encoded, len(encoded), device_id, out))
        self.handle = out[0]
        self.backend, self.platform, self.device_id = backend, platform, device_id
        if backend == "NPU" and _npu_compiler is not None:
            self._npu_handle = ffi.new_handle(self)  # kept alive with the device
            _check(lib.asc_device_set_npu_compiler(self.handle, _npu_compile_callback, self._npu_handle))


def name_arguments(message: str, params: Optional[list[str]]) -> str:
    """The library's "kernel argument N" in a message, as the parameter's name."""
    if not params:
        return message
    return re.sub(r"kernel argument (\d+)", lambda m: f"argument '{params[int(m[1])]}'", message)


def _error(status: int, kernel: Optional[str] = None, params: Optional[list[str]] = None) -> Optional[Exception]:
    """The KernelError subclass for a failed status (None for ASC_OK), read from the thread's last error
    now, before another call replaces it; `params` name the kernel's arguments."""
    if status == lib.ASC_OK:
        return None
    message, file, line, col = last_error()
    if "was interrupted (SIGINT)" in message:
        raise KeyboardInterrupt(message)
    name = status_name(status)
    message = name_arguments(message, params)
    return kernel_error_class(name)(f"{message} [{name}]", file, line, col, kernel=kernel)


def _check(status: int, kernel: Optional[str] = None, params: Optional[list[str]] = None) -> None:
    """Raises the KernelError subclass for a failed status."""
    error = _error(status, kernel, params)
    if error is not None:
        raise error


class _State:
    # Set on the instance, not the class: a launch reads `platform`, and CPython specialises loads of instance
    # attributes only (a class attribute read through an instance costs ~200 instructions a launch more).
    def __init__(self) -> None:
        self.backend = "Model"
        self.platform = "Ascend910B1"  # a Platform value, the name of the libasc platform the device is created as
        self.device_id = 0
        self.device: Optional[_Device] = None
        self.stream: Optional[Stream] = None


_state = _State()


def _reset() -> None:
    _state.device = None
    _state.stream = None


def known_platforms() -> list[str]:
    """The platforms in libasc's table (what asc_platform_name lists); every Platform is one of them."""
    return libasc_platforms()


def use_model(custom_lib_prefix: Optional[str] = None) -> None:
    """Launches run on the Model. `custom_lib_prefix` (pyasc's simulator library directory) is accepted and
    ignored: the Model is part of libasc.so."""
    with _lock:
        if _state.backend != "Model":
            _state.backend = "Model"
            _reset()


def use_npu(custom_lib_prefix: Optional[str] = None) -> None:
    """Launches run on an NPU through CANN. `custom_lib_prefix` is accepted and ignored ($ASC_ACL_LIBRARY
    names libascendcl.so)."""
    with _lock:
        if _state.backend != "NPU":
            _state.backend = "NPU"
            _reset()


def is_model() -> bool:
    return _state.backend == "Model"


def set_soc_version(platform: Union[Platform, str]) -> None:
    """The SoC kernels run as (a Platform, its value or its name)."""
    name = to_platform(platform).value
    if name not in known_platforms():
        raise ValueError(f"platform {name!r} is not in libasc's platform table (supported: {known_platforms()})")
    with _lock:
        if _state.platform != name:
            _state.platform = name
            _reset()


def get_soc_version() -> Platform:
    """The current SoC, as a Platform member."""
    return Platform(_state.platform)


def current_platform() -> str:
    """The current SoC's name (the Platform's value, e.g. "Ascend910B1")."""
    return _state.platform


def current_device_id() -> int:
    return _state.device_id


def set_device(device_id: int) -> None:
    """The device later launches use. The Model has one device, 0; on the NPU the id goes to aclrtSetDevice
    when the device is created (at the first launch)."""
    if isinstance(device_id, bool) or not isinstance(device_id, int) or device_id < 0:
        raise RuntimeError(f"device id must be an int >= 0, got {device_id!r} ({type(device_id).__name__})")
    if _state.backend == "Model" and device_id != 0:
        raise RuntimeError(f"the Model has one device (device_count() == 1), so device id {device_id} does not exist")
    with _lock:
        if _state.device_id != device_id:
            _state.device_id = device_id
            _reset()


def reset_device() -> None:
    """Forgets the current device and stream; the next launch creates them again."""
    with _lock:
        _reset()


def has_device() -> bool:
    return _state.device is not None


def _current_device() -> _Device:
    with _lock:
        if _state.device is None:
            _state.device = _Device(_state.backend, _state.platform, _state.device_id)
        return _state.device


def is_available() -> bool:
    """Whether the current backend can run kernels (the Model always can)."""
    try:
        _current_device()
        return True
    except Exception:
        return False


def current_stream(device_id: Optional[int] = None) -> Stream:
    """The current device's default stream (`device_id` is accepted and ignored: one device at a time)."""
    device = _current_device()
    with _lock:
        if _state.stream is None or _state.stream.device is not device:
            _state.stream = Stream(device)
        return _state.stream


def create_stream(priority: int = 0, asynchronous: bool = False) -> Stream:
    """A new stream on the current device (`priority` is accepted as pyasc does; the Model has one)."""
    return Stream(_current_device(), asynchronous=asynchronous)


def destroy_stream(stream: Optional[Stream]) -> None:
    if stream is not None:
        stream.destroy()


def synchronize(stream: Optional[Stream] = None, timeout: int = 0) -> None:
    """Waits for the stream's launches (the current stream's by default). `timeout` (pyasc's, in ms) is
    accepted and ignored: Stream.set_timeout limits each launch instead."""
    (stream or current_stream()).synchronize()
