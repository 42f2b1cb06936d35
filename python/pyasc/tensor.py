"""pyasc tensors: numpy arrays that operators take and return (an ndarray subclass, so numpy code and
indexing work on them unchanged)."""

from __future__ import annotations

from typing import Any, Optional

import numpy as np


class Tensor(np.ndarray):
    """An ndarray; `t.numpy()` is the same memory as a plain ndarray."""

    def numpy(self) -> np.ndarray:
        return self.view(np.ndarray)

    def __repr__(self) -> str:
        return "pyasc." + repr(self.view(np.ndarray))


def tensor(data: Any = None, *, shape: Optional[Any] = None, dtype: Any = None) -> Tensor:
    """`tensor(array)` wraps an array (no copy when it is an ndarray already; a Tensor is returned as is);
    `tensor(shape=..., dtype=...)` makes a zero-filled one (dtype float32 by default)."""
    if data is None:
        if shape is None:
            raise TypeError("pyasc.tensor() needs data or shape=")
        return np.zeros(shape, dtype or np.float32).view(Tensor)
    if shape is not None:
        raise TypeError("pyasc.tensor(): give data or shape=, not both")
    if isinstance(data, Tensor) and (dtype is None or data.dtype == np.dtype(dtype)):
        return data
    return np.asarray(data, dtype=dtype).view(Tensor)


def from_numpy(array: np.ndarray) -> Tensor:
    """A Tensor sharing `array`'s memory."""
    if not isinstance(array, np.ndarray):
        raise TypeError(f"pyasc.from_numpy() takes an ndarray, got {type(array).__name__}")
    return array.view(Tensor)


def empty(shape: Any, dtype: Any = np.float32) -> Tensor:
    """An uninitialised Tensor."""
    return np.empty(shape, dtype).view(Tensor)
