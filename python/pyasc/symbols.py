"""The values an operator body computes with while it is compiled: array views over the operator's
array parameters, whole-array expressions built from them, and affine index expressions of loop
counters. Python evaluates the body's expressions over these, so `input.shape`, `a.T`, `alpha * b`
and `oh * stride + kh - padding` mean what they mean in numpy, and the result records what to build."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Optional, Union

import numpy as np

Number = Union[int, float]


class ShapeError(ValueError):
    """A shape that the operator body cannot have (raised like numpy raises it)."""


@dataclass(eq=False)
class Param:
    """An array parameter of the operator: its storage is C-contiguous in `shape` order."""

    name: str
    dtype: np.dtype
    shape: Optional[tuple[int, ...]]  # None: an omitted output, shaped by its first resize()

    @property
    def strides(self) -> tuple[int, ...]:
        out, step = [], 1
        for extent in reversed(self.shape or ()):
            out.append(step)
            step *= extent
        return tuple(reversed(out))


class _Arithmetic:
    """Python operators on whole arrays build Elementwise nodes."""

    def _bin(self, op: str, other: Any, reflected: bool = False) -> Any:
        operand = (ArrayView, SlicedView, Elementwise, int, float, np.number)
        if not isinstance(other, operand) or isinstance(other, bool):
            return NotImplemented
        other = float(other) if isinstance(other, np.floating) else other
        return Elementwise(op, (other, self) if reflected else (self, other))

    def __add__(self, o: Any) -> Any:
        return self._bin("add", o)

    def __radd__(self, o: Any) -> Any:
        return self._bin("add", o, True)

    def __sub__(self, o: Any) -> Any:
        return self._bin("sub", o)

    def __rsub__(self, o: Any) -> Any:
        return self._bin("sub", o, True)

    def __mul__(self, o: Any) -> Any:
        return self._bin("mul", o)

    def __rmul__(self, o: Any) -> Any:
        return self._bin("mul", o, True)

    def __truediv__(self, o: Any) -> Any:
        return self._bin("div", o)

    def __rtruediv__(self, o: Any) -> Any:
        return self._bin("div", o, True)

    def __neg__(self) -> Any:
        return Elementwise("neg", (self,))

    def __pos__(self) -> Any:
        return self

    def __abs__(self) -> Any:
        return Elementwise("abs", (self,))


class ArrayView(_Arithmetic):
    """A parameter seen through an axis permutation (identity, or reversed by `.T`)."""

    __array_priority__ = 1000  # numpy scalars on the left defer to our operators

    def __init__(self, param: Param, perm: Optional[tuple[int, ...]] = None):
        self.param = param
        self.perm = perm

    def _perm(self) -> tuple[int, ...]:
        return self.perm if self.perm is not None else tuple(range(len(self.param.shape or ())))

    @property
    def shape(self) -> tuple[int, ...]:
        if self.param.shape is None:
            raise ShapeError(f"the shape of '{self.param.name}' is not known yet: call {self.param.name}.resize(shape)")
        return tuple(self.param.shape[axis] for axis in self._perm())

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        return math.prod(self.shape)

    @property
    def dtype(self) -> np.dtype:
        return self.param.dtype

    @property
    def T(self) -> ArrayView:  # noqa: N802 - numpy's name
        return ArrayView(self.param, tuple(reversed(self._perm())))

    @property
    def identity(self) -> bool:
        return self._perm() == tuple(range(len(self._perm())))

    def resize(self, shape: Any, refcheck: bool = True) -> None:
        """Fixes an omitted output's shape; for a given array it must be the shape it has (numpy refuses to
        resize an array that other arrays reference, and the caller's array is referenced by the caller)."""
        dims = tuple(int(d) for d in (shape if isinstance(shape, (tuple, list)) else (shape,)))
        if self.param.shape is None and self.identity:
            self.param.shape = dims
            return
        if dims != self.shape:
            raise ShapeError(
                f"cannot resize '{self.param.name}' from {self.shape} to {dims}: pass an output of that shape "
                f"or omit it"
            )

    def offsets(self) -> np.ndarray:
        """The storage position of each of this view's elements, in the view's shape."""
        return (
            np.arange(math.prod(self.param.shape or ()), dtype=np.int64)
            .reshape(self.param.shape)
            .transpose(self._perm())
        )

    def storage_index(self, index: tuple) -> tuple:
        """The parameter's own index for `index` into this view."""
        out: list[Any] = [None] * len(index)
        for axis, value in zip(self._perm(), index):
            out[axis] = value
        return tuple(out)

    # -- whole-array arithmetic -------------------------------------------------------------------
    def __getitem__(self, key: Any) -> Any:
        if _whole(key, self.ndim):
            return self
        key = key if isinstance(key, tuple) else (key,)
        if _basic_slicing(key) and not (len(key) == self.ndim and all(type(k) is int for k in key)):
            return SlicedView(self.param, self.offsets()[key])  # numpy's basic indexing: a view
        if len(key) != self.ndim or not all(isinstance(k, (int, Affine)) and not isinstance(k, bool) for k in key):
            raise IndexError(
                f"'{self.param.name}' ({self.ndim}-d) is indexed by one integer per axis or by [:] as a whole"
            )
        return Load(self, tuple(k if isinstance(k, Affine) else Affine.const(k) for k in key))

    def __array_ufunc__(self, ufunc: Any, method: str, *inputs: Any, **kwargs: Any) -> Any:
        return Elementwise.from_ufunc(ufunc, method, inputs, kwargs)

    def __repr__(self) -> str:
        return f"{self.param.name}{'' if self.identity else '.T'}"


class SlicedView(_Arithmetic):
    """Part of a parameter as numpy's basic indexing makes it (`out[i, :]`, `x[:, 1:-1:2]`, `b[None, :]`), for
    whole-array statements: the storage position of each of its elements, in its shape."""

    __array_priority__ = 1000

    def __init__(self, param: Param, offsets: np.ndarray):
        self.param = param
        self.offsets_ = offsets

    def offsets(self) -> np.ndarray:
        return self.offsets_

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(self.offsets_.shape)

    @property
    def ndim(self) -> int:
        return self.offsets_.ndim

    @property
    def size(self) -> int:
        return int(self.offsets_.size)

    @property
    def dtype(self) -> np.dtype:
        return self.param.dtype

    @property
    def T(self) -> SlicedView:  # noqa: N802 - numpy's name
        return SlicedView(self.param, self.offsets_.T)

    def __getitem__(self, key: Any) -> SlicedView:
        key = key if isinstance(key, tuple) else (key,)
        if not _basic_slicing(key):
            raise IndexError(f"a slice of '{self.param.name}' is indexed by integers, slices, None and ... "
                             "(loops index the whole array)")  # fmt: skip
        return SlicedView(self.param, np.asarray(self.offsets_[key]))

    def __array_ufunc__(self, ufunc: Any, method: str, *inputs: Any, **kwargs: Any) -> Any:
        return Elementwise.from_ufunc(ufunc, method, inputs, kwargs)

    def __repr__(self) -> str:
        return f"a slice of {self.param.name} {self.shape}"


def _basic_slicing(key: tuple) -> bool:
    """A numpy basic index: integers, slices, None and one Ellipsis (no loop counters, no index arrays)."""

    def basic(k: Any) -> bool:
        integer = isinstance(k, (int, np.integer)) and not isinstance(k, bool)
        return integer or isinstance(k, slice) or k is None or k is Ellipsis

    return all(basic(k) for k in key) and sum(k is Ellipsis for k in key) <= 1


def _whole(key: Any, ndim: int) -> bool:
    full = slice(None)
    if key is Ellipsis or key == full:
        return True
    return isinstance(key, tuple) and len(key) <= ndim and all(k == full or k is Ellipsis for k in key)


# numpy ufuncs that whole-array statements may use, and the tile op each becomes
UFUNCS = {
    "add": "add",
    "subtract": "sub",
    "multiply": "mul",
    "true_divide": "div",
    "divide": "div",
    "negative": "neg",
    "exp": "exp",
    "log": "log",
    "sqrt": "sqrt",
    "absolute": "abs",
    "maximum": "maximum",
    "minimum": "minimum",
}


@dataclass(eq=False)
class Elementwise(_Arithmetic):
    """op applied element by element to arrays (ArrayView / Elementwise) and Python numbers."""

    op: str
    args: tuple

    __array_priority__ = 1000

    @staticmethod
    def from_ufunc(ufunc: Any, method: str, inputs: tuple, kwargs: dict) -> Any:
        op = UFUNCS.get(ufunc.__name__)
        if method != "__call__" or op is None or kwargs:
            return NotImplemented
        return Elementwise(op, tuple(float(x) if isinstance(x, np.floating) else x for x in inputs))

    def __array_ufunc__(self, ufunc: Any, method: str, *inputs: Any, **kwargs: Any) -> Any:
        return Elementwise.from_ufunc(ufunc, method, inputs, kwargs)

    def arrays(self) -> list[ArrayView]:
        out: list[ArrayView] = []
        for arg in self.args:
            if isinstance(arg, (ArrayView, SlicedView)):
                out.append(arg)
            elif isinstance(arg, Elementwise):
                out.extend(arg.arrays())
        return out


@dataclass(frozen=True)
class Affine:
    """const + sum(coeff * counter): an integer index expression of loop counters."""

    terms: tuple[tuple[str, int], ...] = ()
    offset: int = 0

    @staticmethod
    def const(value: int) -> Affine:
        return Affine((), int(value))

    @staticmethod
    def counter(name: str) -> Affine:
        return Affine(((name, 1),), 0)

    @property
    def coeffs(self) -> dict[str, int]:
        return dict(self.terms)

    @property
    def counters(self) -> set[str]:
        return {name for name, _ in self.terms}

    def _combine(self, other: Any, sign: int) -> Any:
        if isinstance(other, bool) or not isinstance(other, (int, Affine, np.integer)):
            return NotImplemented
        other = other if isinstance(other, Affine) else Affine.const(int(other))
        coeffs = self.coeffs
        for name, c in other.terms:
            coeffs[name] = coeffs.get(name, 0) + sign * c
        return Affine(tuple(sorted((n, c) for n, c in coeffs.items() if c)), self.offset + sign * other.offset)

    def __add__(self, o: Any) -> Any:
        return self._combine(o, 1)

    __radd__ = __add__

    def __sub__(self, o: Any) -> Any:
        return self._combine(o, -1)

    def __rsub__(self, o: Any) -> Any:
        return (-self)._combine(o, 1)

    def __neg__(self) -> Affine:
        return Affine(tuple((n, -c) for n, c in self.terms), -self.offset)

    def __mul__(self, o: Any) -> Any:
        if isinstance(o, bool) or not isinstance(o, (int, np.integer)):
            return NotImplemented
        o = int(o)
        return Affine(tuple((n, c * o) for n, c in self.terms if c * o), self.offset * o)

    __rmul__ = __mul__

    def evaluate(self, grids: dict[str, np.ndarray]) -> Any:
        out: Any = self.offset
        for name, c in self.terms:
            out = out + c * grids[name]
        return out


@dataclass(eq=False)
class Load:
    """One element of an array at affine indices (inside a loop nest)."""

    view: ArrayView
    index: tuple[Affine, ...]

    def counters(self) -> set[str]:
        return set().union(*(i.counters for i in self.index))

    def __mul__(self, other: Any) -> Any:
        if isinstance(other, Load):
            return Product((self, other))
        return NotImplemented


@dataclass(eq=False)
class Product:
    """The product of two loads: the term of a contraction."""

    loads: tuple[Load, Load]


@dataclass
class Range:
    """lo <= expr < hi for a guard; lo or hi None when unbounded on that side."""

    expr: Affine
    lo: Optional[int] = None
    hi: Optional[int] = None

    def holds(self, grids: dict[str, np.ndarray]) -> Any:
        value = self.expr.evaluate(grids)
        ok: Any = True
        if self.lo is not None:
            ok = ok & (value >= self.lo)
        if self.hi is not None:
            ok = ok & (value < self.hi)
        return ok


@dataclass
class Counter:
    """A loop's counter j in [0, extent); the Python loop variable is start + step * j."""

    name: str
    extent: int
