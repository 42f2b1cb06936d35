"""Helpers shared by the basic-API instruction wrappers."""

from __future__ import annotations

from typing import Any, Callable, TypeVar

from ...errors import CodegenError
from ..core.tensor import GlobalTensor, LocalTensor

F = TypeVar("F", bound=Callable[..., Any])


def builtin(fn: F) -> F:
    """Marks an asc function that kernels may call; it emits IR when called."""
    fn.__asc_builtin__ = True  # type: ignore[attr-defined]
    return fn


def require_local(value: Any, fn: str, role: str) -> LocalTensor:
    if not isinstance(value, LocalTensor):
        raise CodegenError(f"{fn}: {role} must be a LocalTensor, got {type(value).__name__}")
    return value


def require_tensor(value: Any, fn: str, role: str) -> Any:
    if not isinstance(value, (LocalTensor, GlobalTensor)):
        raise CodegenError(f"{fn}: {role} must be a LocalTensor or GlobalTensor, got {type(value).__name__}")
    if isinstance(value, GlobalTensor):
        value._require()
    return value
