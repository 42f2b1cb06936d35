"""The steps an operator compiles to, each a few kernel launches. A step computes its index tables
and picks its kernels when it is built; `launches` gives the launches for one call's arrays, which a
call runs and `pyasc.compile` only compiles."""

from __future__ import annotations

import ast
import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Optional

import numpy as np

from asc.errors import CodegenError

from . import elementwise, gather_plan, kernels, scalar_nest
from .errors import NotRecognised, OperatorError
from .generated import kernel_from_source
from .symbols import Affine, ArrayView, Counter, Elementwise, Load, Param, Range, SlicedView

if TYPE_CHECKING:
    from .trace import Tracer

Location = tuple[str, int, int]
FLOATS = (np.dtype(np.float16), np.dtype(np.float32))
# the operand dtype pairs a contraction takes to the cube, and the outputs its fixpipe writes from each
CUBE_OUTPUTS = {
    np.dtype(np.float16): (np.dtype(np.float32), np.dtype(np.float16)),
    np.dtype(np.float32): (np.dtype(np.float32),),
    np.dtype(np.int8): (np.dtype(np.int32),),
}


@dataclass
class Launch:
    kernel: Any  # an asc/asc2 jit function
    cores: int
    args: tuple
    location: Optional[Location] = None  # the operator's statement it runs: set by Plan.launches


class Step:
    target: Param  # the array it writes (a scalar nest may write more: `writes`)
    location: Location

    @property
    def writes(self) -> tuple[str, ...]:
        return (self.target.name,)

    def launches(self, arrays: dict[str, np.ndarray]) -> list[Launch]:
        raise NotImplementedError

    def describe(self) -> str:
        raise NotImplementedError


def _origin(location: Location) -> str:
    return f"{location[0]}:{location[1]}"


# -- whole-array statements ------------------------------------------------------------------------
@dataclass
class ElementwiseStep(Step):
    """A whole-array statement. Arrays that are the dense array of the target's shape are read in place; any
    other view (a slice, a transposed array, a broadcast operand) is first gathered into a dense temporary of
    that shape, and a target that is a slice is written through a dense temporary scattered into it: so the
    elementwise kernel always runs over flat arrays, and a statement reading the part it writes sees the old
    values, as in numpy."""

    target: Param
    expr: Elementwise
    location: Location
    part: Optional[SlicedView] = None  # the part of target written (None: all of it)
    _kernel: Any = None

    def __post_init__(self) -> None:
        params = elementwise.inputs(self.expr)
        for p in params:
            if p.dtype != self.target.dtype:
                raise OperatorError(f"'{p.name}' is {p.dtype} but '{self.target.name}' is {self.target.dtype}: "
                                    f"whole-array statements take one dtype", *self.location)  # fmt: skip
        if self.target.dtype not in elementwise.ASC_DTYPES:
            raise OperatorError(f"'{self.target.name}' is {self.target.dtype}; arrays are float32, float16 or "
                                f"int32", *self.location)  # fmt: skip
        shape = self.part.shape if self.part is not None else tuple(self.target.shape or ())
        self.size = math.prod(shape)
        # (temporary, the array it is gathered from, the storage position of each of its elements)
        self.gathers: list[tuple[Param, Param, np.ndarray]] = []

        def dense(node: Any) -> Any:
            if isinstance(node, Elementwise):
                return Elementwise(node.op, tuple(dense(a) for a in node.args))
            if isinstance(node, ArrayView) and node.identity and node.shape == shape:
                return node
            if isinstance(node, (ArrayView, SlicedView)):
                temp = Param(node.param.name, node.dtype, shape)  # looked up by identity, not by name
                self.gathers.append((temp, node.param, _int32(np.broadcast_to(node.offsets(), shape).reshape(-1))))
                return ArrayView(temp)
            return node

        self.scatter: Optional[np.ndarray] = None  # for each element of target: the temporary's, or SKIP
        try:
            self.dense_expr = dense(self.expr)
            if self.part is not None:
                table = np.full(math.prod(self.target.shape or ()), kernels.SKIP, np.int64)
                table[self.part.offsets().reshape(-1)] = np.arange(self.size)
                self.scatter = _int32(table)
        except NotRecognised as why:  # index tables too large for the Gather's 32-bit offsets
            raise OperatorError(f"a whole-array statement over slices or broadcasts with {why}: the Gather's offsets "
                                "are 32-bit", *self.location) from None  # fmt: skip
        self.inputs = elementwise.inputs(self.dense_expr)

    def kernel(self) -> Any:
        if self._kernel is None:
            text = elementwise.source("elementwise", self.target, self.dense_expr, _origin(self.location))
            self._kernel = kernel_from_source(text, "elementwise")
        return self._kernel

    def launches(self, arrays: dict[str, np.ndarray]) -> list[Launch]:
        if self.size == 0:
            return []
        out: list[Launch] = []
        temps: dict[int, np.ndarray] = {}
        for temp, source, table in self.gathers:
            temps[id(temp)] = np.empty(self.size, temp.dtype)
            out.append(_gather_launch(temps[id(temp)], arrays[source.name].reshape(-1), table, 0.0))
        target = arrays[self.target.name].reshape(-1)
        dest = target if self.scatter is None else np.empty(self.size, target.dtype)
        flat = [dest] + [temps[id(p)] if id(p) in temps else arrays[p.name].reshape(-1) for p in self.inputs]
        cores = kernels.cores_for(-(-self.size // kernels.TILE))
        out.append(Launch(self.kernel(), cores, (*flat, self.size, kernels.TILE)))
        if self.scatter is not None:
            out.append(_gather_launch(target, dest, self.scatter, 0.0))
        return out

    def describe(self) -> str:
        gathered = sorted({f"'{source.name}'" for _, source, _ in self.gathers})
        into = f"'{self.target.name}'" if self.part is None else f"a {self.part.shape} slice of '{self.target.name}'"
        gathers = f", gathering {' and '.join(gathered)}" if gathered else ""
        return f"whole-array statement into {into} (asc2, vector{gathers})"


# -- index tables for recognised nests -------------------------------------------------------------
def _grids(counters: list[Counter]) -> dict[str, np.ndarray]:
    shape = [c.extent for c in counters] or [1]
    index = np.indices(shape, dtype=np.int64).reshape(len(shape), -1)
    return {c.name: index[i] for i, c in enumerate(counters)}


def _axes(view: ArrayView, index: tuple[Affine, ...], grids: dict[str, np.ndarray], size: int) -> list:
    """Per storage axis of view's array, (the index at every grid point, the axis's extent, its stride)."""
    axes = zip(view.storage_index(index), view.param.shape, view.param.strides)
    return [(np.broadcast_to(axis.evaluate(grids), (size,)), extent, stride) for axis, extent, stride in axes]


def _table(load: Load, counters: list[Counter], guards: list[Range], location: Location) -> np.ndarray:
    """The storage position of `load` for every point of the counters' grid (row-major), FILL where a
    guard fails; a position outside the array where the guards hold is the user's out-of-bounds access."""
    grids = _grids(counters)
    size = next(iter(grids.values())).size
    ok = np.ones(size, bool)
    for guard in guards:
        ok &= np.broadcast_to(guard.holds(grids), (size,))
    param = load.view.param
    linear = np.zeros(size, np.int64)
    inside = np.ones(size, bool)
    for value, extent, stride in _axes(load.view, load.index, grids, size):
        inside &= (value >= 0) & (value < extent)
        linear += value * stride
    bad = ok & ~inside
    if bad.any():
        point = {c.name.split("_", 1)[1]: int(grids[c.name][np.argmax(bad)]) for c in counters}
        raise OperatorError(f"'{param.name}' is indexed out of bounds (shape {param.shape}) when {point}",
                            *location)  # fmt: skip
    return np.where(ok, linear, kernels.FILL)


def _scatter_table(out: ArrayView, index: tuple[Affine, ...], counters: list[Counter]) -> np.ndarray:
    """For every element of out's storage: the grid point (row-major) that writes it, or SKIP."""
    grids = _grids(counters)
    size = next(iter(grids.values())).size
    linear = np.zeros(size, np.int64)
    for value, _, stride in _axes(out, index, grids, size):
        linear += value * stride
    table = np.full(math.prod(out.param.shape), kernels.SKIP, np.int64)
    table[linear] = np.arange(size, dtype=np.int64)
    return table


def _padded(table: np.ndarray, rows: int, cols: int, rows_to: int, cols_to: int, products: int = 1) -> np.ndarray:
    """`products` [rows, cols] matrices, each padded to [rows_to, cols_to] with FILL."""
    out = np.full((products, rows_to, cols_to), kernels.FILL, np.int64)
    out[:, :rows, :cols] = table.reshape(products, rows, cols)
    return out.reshape(-1)


def _int32(table: np.ndarray) -> np.ndarray:
    if table.size >= 2**31 or (table.size and table.max() >= 2**31):
        raise NotRecognised("index tables beyond 2**31 elements")
    return table.astype(np.int32)


def _identity(table: np.ndarray) -> bool:
    return bool(np.array_equal(table, np.arange(table.size)))


def _round16(n: int) -> int:
    return -(-n // 16) * 16


def _prod(counters: list[Counter]) -> int:
    return math.prod(c.extent for c in counters)


# -- contractions: gathers, a cube matmul, a scatter -------------------------------------------------
@dataclass
class ContractionStep(Step):
    target: Param
    location: Location
    m: int
    n: int
    k: int
    a: Load
    b: Load
    table_a: Optional[np.ndarray]  # None: a's storage is already the [m, k] matrix
    table_b: Optional[np.ndarray]
    table_c: Optional[np.ndarray]  # None: the [m, n] product is out's storage
    accumulate: bool
    # the product computed transposed, [n, m], because that is out's storage (a convolution's NCHW output): b's
    # matrix transposed times a's (read as a transposed operand), with no scatter
    transposed: bool = False
    # a batch of products: the output's counters that index both operands; each matrix above is `products` of them
    products: int = 1
    out_dtype: np.dtype = field(default_factory=lambda: np.dtype(np.float32))

    @staticmethod
    def build(*, location: Location, out: ArrayView, out_index: tuple[Affine, ...], free: list[Counter],
              reduce: list[Counter], guards: list[Range], accumulate: bool, a: Load,
              b: Load) -> ContractionStep:  # fmt: skip
        in_a, in_b = a.counters(), b.counters()
        batch = [f for f in free if f.name in in_a and f.name in in_b]
        if a.view.dtype != b.view.dtype or a.view.dtype not in CUBE_OUTPUTS:
            raise NotRecognised("operands other than two float16, two float32 or two int8 arrays")
        # what the fixpipe writes from the cube's float32 / int32 sums (Ascend C's Matmul dtype pairs)
        if out.dtype not in CUBE_OUTPUTS[a.view.dtype]:
            allowed = " or ".join(str(d) for d in CUBE_OUTPUTS[a.view.dtype])
            raise NotRecognised(f"a {out.dtype} output of {a.view.dtype} operands (the cube writes {allowed} from "
                                "them)")  # fmt: skip
        if accumulate and out.dtype == np.float16:
            raise NotRecognised("a product added to a float16 output (the sum would round twice)")
        free_a = [f for f in free if f not in batch and (f.name in in_a or f.name not in in_b)]
        free_b = [f for f in free if f not in batch and f.name in in_b and f.name not in in_a]
        shared = {c.name for c in batch + reduce}
        side_a, side_b = {c.name for c in free_a} | shared, {c.name for c in free_b} | shared
        guards_a = [g for g in guards if g.expr.counters <= side_a]
        guards_b = [g for g in guards if not g.expr.counters <= side_a]
        if any(not g.expr.counters <= side_b for g in guards_b):
            raise NotRecognised("a condition on counters of both operands' sides")
        products, m, k, n = _prod(batch), _prod(free_a), _prod(reduce), _prod(free_b)
        mp, kp, np_ = _round16(m), _round16(k), _round16(n)
        table_a = _padded(_table(a, batch + free_a + reduce, guards_a, location), m, k, mp, kp, products)
        table_b = _padded(_table(b, batch + reduce + free_b, guards_b, location), k, n, kp, np_, products)
        table_c = _scatter_table(out, out_index, batch + free_a + free_b)
        if (mp, np_) != (m, n):  # the products are [mp, np_]
            at = np.where(table_c >= 0, table_c, 0)
            product, rest = np.divmod(at, m * n)
            rows, cols = np.divmod(rest, n)
            table_c = np.where(table_c >= 0, (product * mp + rows) * np_ + cols, table_c)
        direct_a = _identity(table_a) and table_a.size == math.prod(a.view.param.shape)
        direct_b = _identity(table_b) and table_b.size == math.prod(b.view.param.shape)
        direct_c = _identity(table_c) and not accumulate and table_c.size == products * mp * np_
        transposed = (not batch and not direct_c and not accumulate and mp == m and np_ == n
                      and _identity(_scatter_table(out, out_index, free_b + free_a)))  # fmt: skip
        if transposed:  # b^T [n, k] gathered instead of b; a's [m, k] is the matmul's transposed right operand
            table_b = table_b.reshape(kp, np_).T.reshape(-1)
            direct_b = _identity(table_b) and table_b.size == math.prod(b.view.param.shape)
        return ContractionStep(
            out.param, location, mp, np_, kp, a, b,
            None if direct_a else _int32(table_a),
            None if direct_b else _int32(table_b),
            None if direct_c or transposed else _int32(table_c),
            accumulate,
            transposed,
            products,
            np.dtype(out.dtype),
        )  # fmt: skip

    def launches(self, arrays: dict[str, np.ndarray]) -> list[Launch]:
        out: list[Launch] = []
        operands = []
        for load, table in ((self.a, self.table_a), (self.b, self.table_b)):
            source = arrays[load.view.param.name].reshape(-1)
            if table is None:
                operands.append(source)
                continue
            matrix = np.empty(table.size, source.dtype)
            out.append(_gather_launch(matrix, source, table, 0.0))
            operands.append(matrix)
        target = arrays[self.target.name].reshape(-1)
        product = target if self.table_c is None else np.empty(self.products * self.m * self.n, self.out_dtype)
        workspace = np.zeros(kernels.MATMUL_WORKSPACE, np.uint8)
        dtype = operands[0].dtype
        if self.transposed:  # out = b^T [n, k] @ (a [m, k])^T
            tiling = kernels.matmul_tiling(self.n, self.m, self.k, dtype, True, self.out_dtype)
            args = (operands[1], operands[0], product, tiling, workspace, True)
        else:
            tiling = kernels.matmul_tiling(self.m, self.n, self.k, dtype, out=self.out_dtype, products=self.products)
            args = (operands[0], operands[1], product, tiling, workspace)
        out.append(Launch(kernels.matmul, self.products * kernels.matmul_blocks(tiling), args))
        if self.table_c is not None:
            out.append(_gather_launch(target, product, self.table_c, 0.0, self.accumulate))
        return out

    def describe(self) -> str:
        moved = [load.view.param.name for load, t in ((self.a, self.table_a), (self.b, self.table_b)) if t is not None]
        gathers = f", gathering {' and '.join(moved)}" if moved else ""
        scatter = f", scattering into '{self.target.name}'" if self.table_c is not None else ""
        if self.transposed:
            scatter = f", computed transposed: '{self.target.name}''s layout"
        batch = f"{self.products} products of " if self.products > 1 else ""
        return (f"contraction into '{self.target.name}': {batch}[{self.m} x {self.k}] @ [{self.k} x {self.n}] on "
                f"the cube{gathers}{scatter}")  # fmt: skip


def _gather_launch(
    dst: np.ndarray, src: np.ndarray, table: np.ndarray, fill: float, accumulate: bool = False
) -> Launch:
    """The gather on the vector unit where its table's tiles read a few source windows (gather_plan), else
    the scalar kernel."""
    vector = dst.dtype == src.dtype and src.dtype.itemsize in (2, 4)  # Gather moves 16- and 32-bit elements
    p = gather_plan.plan(table, src.dtype.itemsize, accumulate) if vector else None
    if p is None:
        cores = kernels.cores_for(table.size // kernels.GATHER_PER_CORE)
        return Launch(kernels.gather, cores, (dst, src, table, table.size, float(fill), accumulate))
    args = (dst, src, p.offsets, p.starts.reshape(-1), table.size, src.size, p.tiles, float(fill), accumulate,
            p.keeps, p.tile, gather_plan.WINDOW, gather_plan.WINDOWS)  # fmt: skip
    return Launch(kernels.gather_windows, kernels.cores_for(p.tiles), args)


# -- window reductions: a gather into rows, a vector reduction -------------------------------------
@dataclass
class WindowReduceStep(Step):
    target: Param
    location: Location
    load: Load
    rows: int
    cols: int
    use_max: bool
    fill: float
    table_g: np.ndarray
    table_out: Optional[np.ndarray]
    accumulate: bool
    blocked: bool  # one 32-byte block per window (table_g is [cols, block]): BlockReduce, not rows

    @staticmethod
    def build(*, location: Location, out: ArrayView, out_index: tuple[Affine, ...], free: list[Counter],
              reduce: list[Counter], guards: list[Range], accumulate: bool, op: str, init: float,
              load: Load) -> Step:  # fmt: skip
        if load.view.dtype not in FLOATS or out.dtype != load.view.dtype:
            raise NotRecognised("a reduction other than of float16 or float32 into the same dtype")
        rows, cols = _prod(reduce), _prod(free)
        fill = init if op == "max" else 0.0  # max: positions outside the guard count as the initial value
        table = _table(load, reduce + free, guards, location)
        table_out = _scatter_table(out, out_index, free)
        direct = _identity(table_out) and not accumulate
        from_initial = op == "max" and init != float("-inf")
        if direct and not from_initial:
            pairs = PairPoolStep.match(out, load, table, op == "max", location)
            if pairs is not None:
                return pairs
        if from_initial:
            table = np.concatenate([table, np.full(cols, kernels.FILL, np.int64)])  # a row of the initial value
            rows += 1
        # A window that fits one 32-byte block is gathered as one (padded with the fill): the gather then reads
        # each window's neighbours together (runs of the source, not a stride), and BlockReduce takes each block
        block = 32 // load.view.dtype.itemsize
        blocked = rows <= block
        if blocked:
            windows = np.full((cols, block), kernels.FILL, np.int64)
            windows[:, :rows] = table.reshape(rows, cols).T
            table = windows.reshape(-1)
        return WindowReduceStep(out.param, location, load, rows, cols, op == "max", fill, _int32(table),
                                None if direct else _int32(table_out), accumulate, blocked)  # fmt: skip

    def launches(self, arrays: dict[str, np.ndarray]) -> list[Launch]:
        source = arrays[self.load.view.param.name].reshape(-1)
        target = arrays[self.target.name].reshape(-1)
        windows = np.empty(self.table_g.size, source.dtype)
        result = target if self.table_out is None else np.empty(self.cols, source.dtype)
        if self.blocked:
            args = (windows, result, self.cols, self.use_max, kernels.BLOCK_TILE)
            reduce = Launch(kernels.reduce_blocks, kernels.cores_for(-(-self.cols // kernels.BLOCK_TILE)), args)
        else:
            args = (windows, result, self.cols, self.rows, kernels.TILE, self.use_max)
            reduce = Launch(kernels.reduce_rows, kernels.cores_for(-(-self.cols // kernels.TILE)), args)
        out = [_gather_launch(windows, source, self.table_g, self.fill), reduce]
        if self.table_out is not None:
            out.append(_gather_launch(target, result, self.table_out, 0.0, self.accumulate))
        return out

    def describe(self) -> str:
        return (f"window {'max' if self.use_max else 'sum'} into '{self.target.name}': {self.rows} rows of "
                f"{self.cols} on the vector unit")  # fmt: skip


@dataclass
class PairPoolStep(Step):
    """2 x 2 windows at stride 2 with no padding (the tutorial's max_pool2d): no index table, no gather.
    `kernels.pool_pairs` brings each output row's two input rows in by one DMA and folds them, then the
    columns' pairs through GatherMask's even / odd patterns: the structured path a board takes."""

    target: Param
    location: Location
    source: Param
    planes: int
    height: int
    width: int
    use_max: bool

    @staticmethod
    def match(out: ArrayView, load: Load, table: np.ndarray, use_max: bool,
              location: Location) -> Optional[PairPoolStep]:  # fmt: skip
        """The step if every window (a column of `table`, the nest's source positions) is the 2 x 2 block at
        (2 oh, 2 ow) of the source's last two axes; else None. The caller has checked that the windows fill
        `out` in its own order, not added to it, from the reduction's identity (-inf, or 0 for a sum)."""
        shape = load.view.param.shape or ()
        if len(shape) < 2:
            return None
        *lead, height, width = shape
        planes, out_h, out_w = math.prod(lead), height // 2, width // 2
        size = load.view.dtype.itemsize
        if out_h == 0 or out_w == 0 or kernels.pool_rows(width, size) == 0:
            return None
        if out.param.shape != (*lead, out_h, out_w) or table.size != 4 * planes * out_h * out_w:
            return None
        plane, oh, ow = np.meshgrid(np.arange(planes), np.arange(out_h), np.arange(out_w), indexing="ij")
        corner = ((plane * height + 2 * oh) * width + 2 * ow).reshape(-1)
        windows = np.stack([corner, corner + 1, corner + width, corner + width + 1])
        if not np.array_equal(np.sort(table.reshape(4, -1), axis=0), windows):
            return None
        return PairPoolStep(out.param, location, load.view.param, planes, height, width, use_max)

    def launches(self, arrays: dict[str, np.ndarray]) -> list[Launch]:
        out_h = self.height // 2
        rows = kernels.pool_rows(self.width, self.source.dtype.itemsize)
        source = arrays[self.source.name].reshape(-1)
        target = arrays[self.target.name].reshape(-1)
        args = (source, target, self.planes, out_h, self.height, self.width, self.use_max, rows)
        return [Launch(kernels.pool_pairs, kernels.cores_for(self.planes * -(-out_h // rows)), args)]

    def describe(self) -> str:
        return (f"window {'max' if self.use_max else 'sum'} into '{self.target.name}': 2 x 2 at stride 2 over "
                f"'{self.source.name}', rows folded and columns paired by GatherMask on the vector unit")  # fmt: skip


# -- everything else: scalar code ------------------------------------------------------------------
@dataclass
class ScalarNestStep(Step):
    target: Param
    location: Location
    params: list[Param] = field(default_factory=list)
    kernel: Any = None
    written: tuple[str, ...] = ()

    @property
    def writes(self) -> tuple[str, ...]:
        return self.written

    @staticmethod
    def build(node: ast.For, tracer: Tracer, location: Location) -> ScalarNestStep:
        text, params = scalar_nest.source("loop_nest", node, tracer, _origin(location))
        written = [p for p in params if p.name in _written(node, tracer)]
        if not written:
            raise OperatorError("this loop nest writes no array element", *location)
        kernel = kernel_from_source(text, "loop_nest")
        return ScalarNestStep(written[0], location, params, kernel, tuple(p.name for p in written))

    def launches(self, arrays: dict[str, np.ndarray]) -> list[Launch]:
        return [Launch(self.kernel, 1, tuple(arrays[p.name].reshape(-1) for p in self.params))]

    def describe(self) -> str:
        return f"loop nest into '{self.target.name}' (scalar code, one core)"


def _written(node: ast.For, tracer: Tracer) -> set[str]:
    out = set()
    for sub in ast.walk(node):
        if isinstance(sub, ast.Subscript) and isinstance(sub.ctx, ast.Store):
            try:
                view = tracer.eval(sub.value)
            except CodegenError:
                continue
            if isinstance(view, ArrayView):
                out.add(view.param.name)
    return out
