"""``lower-arrays`` rule of ``sort`` (``np.sort``, ``np.argsort``, ``np.median`` along any
axis; compiler/ir/ops/reorder.py).

Each row (the elements along the sorted axis, length ``n``; one row per index of the
other axes) is sorted through a permutation: ``perm``
starts as ``0..n-1`` and a bottom-up merge sort over ``ceil(log2 n)`` levels merges runs
of ``width = 1, 2, 4...`` into ``work`` and copies them back, taking the right run's
element only when it is strictly less (stable: ties keep their order). ``x < y`` is
NumPy's order with NaNs last: ``x < y or (y is NaN and x is not)``; bools compare as
ints. Then ``argsort`` stores ``perm``, ``sort`` loads the row's element ``perm[i]`` and
``median`` loads the middle one or two (the mean of two in the result dtype, NaN when
the row's last sorted element is NaN or the row is empty).

Every loop is a counted loop (docs/ad.md), so AD rebuilds their trip counts; the only
derivatives are those of the final loads (and the median's mean): the gradient of a sort
follows its permutation. ``O(n log n)`` comparisons per row; ``perm`` and ``work`` are
two ``int64`` arrays of ``n``, reused by every row.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from gradc.compiler.ir import ops
from gradc.compiler.ir.core import Instruction, Value
from gradc.compiler.ir.types import I64, ArrayType, ScalarType
from gradc.passes.arrays.linalg_loops import counted_loop
from gradc.passes.arrays.loops import ArrayLowering
from gradc.passes.arrays.table import ARRAY_LOWERING, ArrayRule

_INDEX = ArrayType(I64, 1, "C")
#: The index of a row's element ``p``: the row's other indices with ``p`` at the axis.
At = Callable[[Value], list[Value]]


def _levels(lw: ArrayLowering, n: Value) -> Value:
    """``ceil(log2(n))`` (0 for ``n <= 1``): how many doublings of 1 stay below ``n``."""
    b = lw.b
    one, zero = lw.const(1, I64), lw.const(0, I64)
    with counted_loop(b, zero, lw.const(63, I64), [one, zero], "sort.levels") as loop:
        width, count = loop.values
        below = b.cmp("lt", width, n)
        loop.next = [b.select(below, b.add(width, width), width), b.add(count, b.cast(below, I64))]
    return loop.values[1]


def _less(lw: ArrayLowering, x: Value, y: Value) -> Value:
    """NumPy's sort order: ``x < y``, NaNs after every number."""
    b = lw.b
    t = x.type
    assert isinstance(t, ScalarType)
    if t.is_bool:
        x, y = b.cast(x, I64), b.cast(y, I64)
    lt = b.cmp("lt", x, y)
    if not t.is_float:
        return lt
    y_nan, x_nan = b.cmp("ne", y, y), b.cmp("ne", x, x)
    return b.binary(ops.BitOr, lt, b.binary(ops.BitAnd, y_nan, b.unary(ops.Not, x_nan)))


def _merge_level(
    lw: ArrayLowering, a: Value, at: At, bufs: tuple[Value, Value], width: Value, n: Value
) -> None:
    """Merge the sorted runs of ``width`` of ``perm`` pairwise into ``work``, then copy
    ``work`` back (``bufs``: ``perm``, ``work``)."""
    b = lw.b
    perm, work = bufs
    zero, one = lw.const(0, I64), lw.const(1, I64)
    last = b.sub(n, one)
    pair = b.add(width, width)
    blocks = b.binary(ops.FloorDiv, b.sub(b.add(n, pair), one), pair)
    with counted_loop(b, zero, blocks, label="sort.block") as block:
        lo = b.mul(block.index, pair)
        mid = b.insert(ops.Min(b.add(lo, width), n, type=I64))
        hi = b.insert(ops.Min(b.add(lo, pair), n, type=I64))
        with counted_loop(b, lo, hi, [lo, mid], "sort.merge") as k:
            i, j = k.values
            # one of i < mid, j < hi holds; the other index is clamped to stay readable
            pi = lw.load(perm, [b.insert(ops.Min(i, last, type=I64))])
            pj = lw.load(perm, [b.insert(ops.Min(j, last, type=I64))])
            right_less = _less(lw, lw.load(a, at(pj)), lw.load(a, at(pi)))
            left_done = b.cmp("ge", i, mid)
            take_right = b.binary(
                ops.BitAnd, b.cmp("lt", j, hi), b.binary(ops.BitOr, left_done, right_less)
            )
            lw.store(work, [k.index], b.select(take_right, pj, pi))
            step = b.cast(take_right, I64)
            k.next = [b.add(i, b.sub(one, step)), b.add(j, step)]
    with lw.loop_nest([n], "sort.copy") as (p,):
        lw.store(perm, [p], lw.load(work, [p]))


def _median(lw: ArrayLowering, a: Value, at: At, perm: Value, n: Value, t: ScalarType) -> Value:
    """The median of a row of ``a`` (``n > 0`` elements at ``at``) from its sorting
    ``perm``."""
    b = lw.b
    one, two = lw.const(1, I64), lw.const(2, I64)

    def element(position: Value) -> Value:
        return b.cast(lw.load(a, at(lw.load(perm, [position]))), t)

    low = element(b.binary(ops.FloorDiv, b.sub(n, one), two))
    high = element(b.binary(ops.FloorDiv, n, two))
    last = element(b.sub(n, one))
    mean = b.mul(b.add(low, high), lw.const(0.5, t))  # NumPy's (low + high) / 2, exactly
    odd = b.cmp("eq", b.binary(ops.Mod, n, two), one)
    value = b.select(odd, low, mean)
    if t.is_float:
        value = b.select(b.cmp("ne", last, last), last, value)
        # NumPy's median is the mean of the middle elements, a sum that starts at +0.0:
        # -0.0 in the middle gives +0.0 (fuzz seed 630519: x // median seen as x // -0.0)
        value = b.add(lw.const(0.0, t), value)
    return value


# long-function: one row's sort, then the three kinds' outputs, share its loops
def _sort(lw: ArrayLowering, inst: Instruction) -> Value | None:
    assert isinstance(inst, ops.Sort)
    b = lw.b
    a = inst.array
    dims = lw.dims(a)
    axis = inst.axis
    lead, n = [*dims[:axis], *dims[axis + 1 :]], dims[axis]
    zero = lw.const(0, I64)
    perm, work = lw.new_array(_INDEX, [n]), lw.new_array(_INDEX, [n])
    levels = _levels(lw, n)
    t = inst.type
    median = inst.kind == ops.SortKind.MEDIAN
    scalar = isinstance(t, ScalarType)
    rt = t.dtype if isinstance(t, ArrayType) else t
    assert isinstance(rt, ScalarType)
    if median:
        out_t = ArrayType(rt, 1, "C") if scalar else t
        out = lw.new_array(out_t, [lw.const(1, I64)] if scalar else lead)
    else:
        out = lw.new_array(t, dims)
    with lw.loop_nest(lead, "sort.row") as row:

        def at(p: Value, row: Sequence[Value] = row) -> list[Value]:
            return [*row[:axis], p, *row[axis:]]

        with lw.loop_nest([n], "sort.init") as (p,):
            lw.store(perm, [p], p)
        with counted_loop(b, zero, levels, [lw.const(1, I64)], "sort.level") as level:
            (width,) = level.values
            _merge_level(lw, a, at, (perm, work), width, n)
            level.next = [b.add(width, width)]
        if median:
            where = [zero] if scalar else list(row)
            lw.store(out, where, lw.const(float("nan"), rt))
            with b.if_then(b.cmp("gt", n, zero), "median.nonempty"):
                lw.store(out, where, _median(lw, a, at, perm, n, rt))
        else:
            with lw.loop_nest([n], "sort.out") as (p,):
                q = lw.load(perm, [p])
                value = q if inst.kind == ops.SortKind.ARGSORT else lw.load(a, at(q))
                lw.store(out, at(p), value)
    if median and scalar:
        return lw.load(out, [zero])
    return out


ARRAY_LOWERING.set([ops.Sort], ArrayRule(lower=_sort))
