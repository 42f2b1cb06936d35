"""'Did you mean' hints for Ascend C spellings used in Python kernels."""

from __future__ import annotations

import re
from typing import Optional


def snake_case(name: str) -> str:
    """DataCopy -> data_copy, SetFlag -> set_flag, GetBlockIdx -> get_block_idx."""
    s = re.sub(r"(.)([A-Z][a-z]+)", r"\1_\2", name)
    return re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", s).lower()


def suggest(name: str) -> Optional[str]:
    """The asc spelling of an Ascend C name, if asc has it."""
    import asc

    candidates = [snake_case(name), name.lower()]
    if name.startswith("AscendC::"):
        candidates.insert(0, snake_case(name.split("::", 1)[1]))
    for candidate in candidates:
        if candidate != name and hasattr(asc, candidate):
            return f"asc.{candidate}"
    return None


def did_you_mean(name: str) -> str:
    hint = suggest(name)
    return f"; did you mean {hint}?" if hint else ""
