"""asctile's cv_strategy: whole shapes in the code, halves on the two vector sub-blocks (asc2.halves)."""

from __future__ import annotations

from typing import Any

from asc.errors import CodegenError
from asc.language.basic.utils import builtin
from asc2 import halves

from ._memory import DistribMode, copy


class _Strategy:
    """The context ``with cv_strategy(split):`` opens; its end stops splitting new copies from L0C (the halves
    made inside stay halves)."""

    def __asc_region__(self, completed: bool = True) -> None:
        halves.leave()


@builtin
def cv_strategy(split: Any) -> _Strategy:
    """Inside the context a matmul's product copied from L0C into the Unified Buffer is split over the two
    vector sub-blocks (``SplitByM``: rows, ``SplitByN``: columns) while the code keeps its whole shape:
    element-wise operations, reductions along the other axis, reshapes and broadcasts that keep the split
    axis, copy_out (each sub-block its half) and copies into L1 (the halves joined) work on the halves
    (asc2.halves). Needs ``cv_ratio=2``."""
    if not isinstance(split, DistribMode):
        raise CodegenError(f"asctile.cv_strategy: split is an asctile.DistribMode, got {split!r}")
    if split not in (DistribMode.SplitByM, DistribMode.SplitByN):
        raise CodegenError(f"asctile.cv_strategy: splitting by axis must be requested, got {split.name}")
    halves.enter(int(split), "asctile.cv_strategy", copy)
    return _Strategy()


__all__ = ["cv_strategy"]
