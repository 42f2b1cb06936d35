"""The system workspace: set_sys_workspace(addr) names the GM buffer that
get_sys_workspace() returns later in the kernel (Ascend C's SetSysWorkspace /
GetSysWorkSpacePtr). On the Model there is no launcher-provided workspace:
pass one as a kernel argument and set it first (a kernel reaching
get_sys_workspace without one fails with a KernelError saying so)."""

from __future__ import annotations

from typing import Any

from ...codegen.context import current_builder
from ...errors import CodegenError
from ..core import dtype as dt
from ..core.tensor import GlobalAddress
from .utils import builtin


@builtin
def set_sys_workspace(workspace: Any) -> None:
    """Makes `workspace` (a GM address argument) the kernel's system workspace."""
    if not isinstance(workspace, GlobalAddress):
        raise CodegenError(f"set_sys_workspace: expected a GM address argument, got {type(workspace).__name__}")
    current_builder().sys_workspace = workspace


@builtin
def get_sys_workspace() -> GlobalAddress:
    """The system workspace as a uint8 GM address: the one set_sys_workspace named. In a kernel that set none it is
    the framework's, which the Model's launches do not provide: reaching the call is then a KernelError."""
    workspace = getattr(current_builder(), "sys_workspace", None)
    if workspace is None:
        return GlobalAddress(current_builder().op("get_sys_workspace", []), dt.uint8)
    return workspace if workspace.dtype == dt.uint8 else workspace.reinterpret(dt.uint8)
