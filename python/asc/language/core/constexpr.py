"""asc.ConstExpr[T]: a parameter whose value is baked into the compiled kernel."""

from __future__ import annotations

from typing import Any, Generic, TypeVar

T = TypeVar("T")


class ConstExpr(Generic[T]):
    """Annotate a kernel parameter as ``asc.ConstExpr[int]`` to specialise on its value."""


def is_constexpr(annotation: Any) -> bool:
    if annotation is ConstExpr:
        return True
    return getattr(annotation, "__origin__", None) is ConstExpr
