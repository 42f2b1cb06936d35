"""How a gather through an index table runs on the vector unit (kernels.gather_windows) instead of one element
per scalar step (kernels.gather): the destination in tiles of `tile` elements; the source elements a tile
reads lie in a few windows of at most WINDOW elements (an im2col tile reads a few rows of each channel it
touches, a pooling tile a few input rows), each window copied into the Unified Buffer by one DMA; then one
Gather instruction picks every element by its byte offset in that buffer. After the windows come a block
holding the fill value (the table's FILL entries read it) and, when the table keeps elements (SKIP), the
destination tile's old values (its SKIP entries read those). A table no tile size fits takes the scalar
kernel: the plan is None."""

from __future__ import annotations

import weakref
from dataclasses import dataclass
from typing import Optional

import numpy as np

from . import kernels

WINDOW = 2048  # elements a window holds
WINDOWS = 8  # windows a tile may read
TILES = (2048, 1024, 512, 256)  # tile sizes tried, largest first
_BLOCK = 32  # bytes: a window starts at a whole block of the source


@dataclass(frozen=True)
class GatherPlan:
    tile: int
    tiles: int
    starts: np.ndarray  # int32 [tiles, WINDOWS]: each window's first source element (-1: not used)
    offsets: np.ndarray  # uint32 [tiles * tile]: each destination element's byte offset in the buffer
    keeps: bool  # SKIP entries: the buffer holds the destination tile's old values too


_plans: dict[int, tuple[weakref.ref, dict]] = {}  # by the table's id, while the table lives (a step's)


def plan(table: np.ndarray, itemsize: int, accumulate: bool) -> Optional[GatherPlan]:
    """The vector plan of the gather `table` describes (cached per table and element size), or None."""
    key_id = id(table)
    entry = _plans.get(key_id)
    if entry is None or entry[0]() is not table:
        entry = _plans[key_id] = (weakref.ref(table, lambda _: _plans.pop(key_id, None)), {})
    cached = entry[1]
    key = (itemsize, accumulate)
    if key not in cached:
        cached[key] = _plan(table, itemsize, accumulate)
    return cached[key]


def _plan(table: np.ndarray, itemsize: int, accumulate: bool) -> Optional[GatherPlan]:
    block = _BLOCK // itemsize
    if accumulate and (table == kernels.FILL).any():  # the scalar kernel overwrites there: not an addition
        return None
    keeps = not accumulate and bool((table == kernels.SKIP).any())
    for tile in TILES:
        tiles = -(-table.size // tile)
        padded = np.full(tiles * tile, kernels.FILL, np.int64)
        padded[: table.size] = table
        rows = padded.reshape(tiles, tile)
        found = _windows(rows, block)
        if found is None:
            continue
        starts, slot_of = found
        fill_at = WINDOWS * WINDOW
        positions = np.arange(tile, dtype=np.int64)
        skip_at = fill_at + block + positions if keeps else np.full(tile, fill_at)  # accumulate: SKIP adds 0
        element = np.where(rows >= 0, slot_of, np.where(rows == kernels.SKIP, skip_at[None, :], fill_at))
        return GatherPlan(tile, tiles, starts.astype(np.int32), (element * itemsize).astype(np.uint32).reshape(-1),
                          keeps)  # fmt: skip
    return None


def _windows(rows: np.ndarray, block: int) -> Optional[tuple[np.ndarray, np.ndarray]]:
    """Each tile's windows: sorted indices split where the next one is past the window begun; None when a
    tile needs more than WINDOWS. Returns the starts [tiles, WINDOWS] and every entry's buffer element."""
    valid = rows >= 0
    big = np.iinfo(np.int64).max
    ordered = np.sort(np.where(valid, rows, big), axis=1)
    starts = np.full((rows.shape[0], WINDOWS), -1, np.int64)
    slot_of = np.zeros(rows.shape, np.int64)
    current = np.where(ordered[:, 0] != big, ordered[:, 0] // block * block, big)
    for w in range(WINDOWS):  # window w of every tile at once: its start, then what lies past its end
        open_ = current != big
        starts[:, w] = np.where(open_, current, -1)
        inside = valid & (rows >= current[:, None]) & (rows < current[:, None] + WINDOW)
        slot_of = np.where(inside, w * WINDOW + rows - current[:, None], slot_of)
        after = np.where(ordered >= current[:, None] + WINDOW, ordered, big).min(axis=1)
        current = np.where(open_ & (after != big), after // block * block, big)
    if (current != big).any():
        return None
    return starts, slot_of
