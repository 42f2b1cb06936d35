"""The error for runtime calls the NPU backend cannot make yet: libasc's C ABI has no function for them."""

from __future__ import annotations

from typing import NoReturn


class NpuRuntimeCallMissing(NotImplementedError):
    """An asc.lib.runtime call on Backend.NPU that needs a C ABI function libasc does not have."""


def npu_missing(call: str, acl: str) -> NoReturn:
    """Raises for `call` on the NPU: it needs a C ABI wrapper of the CANN function `acl`."""
    raise NpuRuntimeCallMissing(
        f"asc.lib.runtime.{call} on Backend.NPU needs libasc's C ABI to wrap {acl}, which it does not yet "
        "(only the Model backend implements it). NPU launches through asc.jit copy numpy arrays in and out "
        "themselves; see docs/runtime-api.md"
    )
