"""The refusal shared by the names asctile has whose semantics the Model does not have yet."""

from __future__ import annotations

from typing import Any, Callable

from asc.errors import CodegenError
from asc.language.basic.utils import builtin


class NotOnTheModelError(CodegenError, NotImplementedError):
    """asctile.<name> exists in pyasc-dev, but not on the Model yet: a CodegenError (the kernel's line is
    named) that is also a NotImplementedError."""


def not_on_the_model(name: str, why: str) -> Callable[..., Any]:
    """A builtin that refuses every call with NotOnTheModelError naming `name` and saying `why`."""

    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise NotOnTheModelError(f"asctile.{name} is not on the Model yet ({why})")

    refuse.__name__ = refuse.__qualname__ = name
    refuse.__doc__ = f"Not on the Model yet: {why}. Raises NotOnTheModelError."
    return builtin(refuse)


def refuse(name: str, why: str) -> None:
    raise NotOnTheModelError(f"asctile.{name} is not on the Model yet ({why})")
