"""The kernel language: asc.language.core (types) and asc.language.basic (instructions)."""

from .basic import *  # noqa: F403
from .basic import __all__ as _basic_all
from .core import *  # noqa: F403
from .core import __all__ as _core_all
from .fwk import *  # noqa: F403
from .fwk import __all__ as _fwk_all

__all__ = [*_core_all, *_basic_all, *_fwk_all]
