"""The launcher, as pyasc has it: ``Launcher(LaunchOptions(core_num, stream)).run(kernel, name, args)`` is the
one call through which a compiled kernel runs. pyasc's unit tests patch ``Launcher.run`` to make a launch
compile-only (``unittest.mock.patch("asc.runtime.launcher.Launcher.run")``); a JIT launch notices the patch
and goes through it, and otherwise takes its own fast path, which does what ``run`` does. ``DRY_RUN`` set in
the environment makes every launch compile-only too."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any, Callable, Optional


@dataclass(frozen=True)
class LaunchOptions:
    """Where a launch runs: on `core_num` blocks, on `stream` (None: the current stream)."""

    core_num: int = 0
    stream: Optional[Any] = None


# Called after an attribute of a Patchable class is set or deleted (jit.py's launchers keep a flag of whether the
# launch stages are their own).
on_patch: list[Callable[[], None]] = []


class Patchable(type):
    """The class of classes whose methods tests patch (Launcher.run, JITFunction._run_launcher and _run_compiler):
    setting or deleting one of their attributes calls the `on_patch` functions, so that a launch can test one
    flag instead of looking each method up."""

    def __setattr__(cls, name: str, value: Any) -> None:
        super().__setattr__(name, value)
        for changed in on_patch:
            changed()

    def __delattr__(cls, name: str) -> None:
        super().__delattr__(name)
        for changed in on_patch:
            changed()


class Launcher(metaclass=Patchable):
    def __init__(self, options: LaunchOptions):
        self.options = options

    def run(self, kernel: Any, function_name: str, user_args: tuple) -> None:
        """Runs `kernel` (a jit CompiledKernel) with its run-time argument values `user_args`, as launched
        by `function_name`; raises what the launch reports."""
        if os.environ.get("DRY_RUN"):
            return
        if self.options.core_num <= 0:
            raise ValueError(f"{function_name}: the core number must be at least 1, got {self.options.core_num}")
        kernel.run(self.options.core_num, self.options.stream, list(user_args))


_UNPATCHED_RUN = Launcher.run
# os.environ's own mapping (bytes keys on POSIX): a membership test there costs a fraction of os.environ.get,
# which matters on the launch fast path.
_ENVIRON = getattr(os.environ, "_data", None)
_DRY_RUN = b"DRY_RUN" if _ENVIRON is not None and all(isinstance(k, bytes) for k in list(_ENVIRON)[:1]) else None
# A launch's inline test that DRY_RUN is certainly unset, `_DRY_RUN_KEY not in _ENVIRON_KEYS`: the environment's own
# mapping where it is bytes-keyed; elsewhere a set that holds the key, so that the test fails and the launch asks
# through_launcher().
_DRY_RUN_KEY, _ENVIRON_KEYS = (_DRY_RUN, _ENVIRON) if _DRY_RUN is not None else (None, {None})


def through_launcher() -> bool:
    """Whether a launch must go through Launcher.run: it was patched (a mock), or DRY_RUN is set."""
    if Launcher.run is not _UNPATCHED_RUN:
        return True
    if _DRY_RUN is not None:
        return _DRY_RUN in _ENVIRON and bool(os.environ.get("DRY_RUN"))
    return bool(os.environ.get("DRY_RUN"))
