"""``lower-arrays`` rules of the reductions (``reduce``, ``cumulate``): loop nests that
carry their accumulators in phis, reading the array through
:meth:`~.loops.ArrayLowering.operand`, so that an elementwise chain feeding a reduction
is computed inside the reduction's loop (``np.sum(a * x + b)`` allocates nothing).

A reduction to a scalar is one loop nest over the reduced axes; a partial one loops over
the kept axes (outer) and, for each output element, over the reduced axes (inner),
storing one element of a new C-contiguous array; a sum over leading axes with the last
axis kept (``np.sum(A, axis=0)``) computes ``COLUMNS`` (8) neighbouring outputs in one
pass over the reduced axes. Example (``np.sum(a)`` of a 1-D ``a``; a float sum adds into
``LANES`` partial sums, here shown with one)::

    %s = reduce sum %a, [0] 0 : f64

becomes::

      %n = dim %a, 0 : i64
      br ^reduce.loop
    ^reduce.loop:
      %i = phi [^entry: %c0], [^reduce.body: %i1] : i64
      %acc = phi [^entry: %zero], [^reduce.body: %acc1] : f64
      %more = cmp lt %i, %n : i1
      condbr %more, ^reduce.body, ^reduce.done
    ^reduce.body:
      %p = elemaddr %a, (%i) : ptr[f64]
      %x = load %p : f64
      %acc1 = add %acc, %x : f64
      %i1 = add %i, %c1 : i64
      br ^reduce.loop
    ^reduce.done:            # %acc is the sum

Summation order: in the result dtype (an ``f32`` sum accumulates in ``f32``, as NumPy's),
in C order of the reduced axes, a float sum into ``LANES`` (4) partial sums along the
innermost reduced axis (element ``i`` into sum ``i % 4``) added pairwise at the end (a
column sum: one sequential sum per output), where
NumPy adds pairwise in blocks of 128 with 8 accumulators each
(``numpy/_core/src/umath/loops_utils.h.src``). The error bound is about ``(n/4)·eps·Σ|x|``
(``n·eps·Σ|x|`` for a column sum) against NumPy's ``O(log n)·eps·Σ|x|``; the differential tests compare within
``SUM_TOLERANCE`` (tests/codegen/test_arrays_differential.py). Cumulative
sums and products, min/max, arg-min/max and integer sums are exact (NumPy's order too, or
no order dependence). ``var``/``std`` use NumPy's two passes (the mean, then the sum of
squared deviations divided by ``max(n - ddof, 0)``); norms NumPy's formulas
(``sqrt(Σ x²)``, ``Σ|x|``, ``max|x|`` with 0 for no elements).

Min and max propagate NaN as ``np.minimum.reduce`` does; ``argmin``/``argmax`` return
the first extremum, a NaN counting as one. The kinds without identity raise NumPy's
ValueError before any loop when a reduced axis has length 0.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from gradc.compiler.ir import ops
from gradc.compiler.ir.core import Instruction, Value
from gradc.compiler.ir.ops.reductions import EMPTY_MESSAGES, NO_IDENTITY
from gradc.compiler.ir.types import F64, I1, I64, ArrayType, ScalarType
from gradc.passes.arrays.loops import ArrayLowering, Reader, element_type
from gradc.passes.arrays.table import ARRAY_LOWERING, ArrayRule

K = ops.ReduceKind

#: Partial sums of a float reduction (:meth:`_Reduction.total`); a power of 2.
LANES = 4

#: Outputs along the last (kept) axis a partial sum computes together (:func:`_columns`):
#: 8 float64s, a cache line of a C-contiguous row.
COLUMNS = 8

#: The kinds that add up one term per element.
SUMS = frozenset({K.SUM, K.MEAN, K.NORM1, K.NORM2})

#: ``(index over the reduced axes, carried values) -> next carried values``.
Step = Callable[[list[Value], list[Value]], list[Value]]


def counted_loop(
    lw: ArrayLowering,
    start: Value,
    stop: Value,
    step: int,
    carried: list[Value],
    body: Callable[[Value, list[Value]], list[Value]],
    label: str = "reduce",
) -> list[Value]:
    """``for i in range(start, stop, step)`` (``step > 0``) carrying values in phis:
    ``carried = body(i, carried)``; returns the carried values after the loop (the
    builder is after it)."""
    b = lw.b
    pre = b.block
    assert pre is not None
    header = b.new_block(f"{label}.loop")
    inside = b.new_block(f"{label}.body")
    done = b.new_block(f"{label}.done")
    b.jump(header)
    b.position_at_end(header)
    i = b.phi(I64, name="r")
    i.incoming.append((pre, start))
    phis = []
    for v in carried:
        phi = b.phi(v.type)
        phi.incoming.append((pre, v))
        phis.append(phi)
    b.branch(b.cmp("lt", i, stop), inside, done)
    b.position_at_end(inside)
    out = body(i, list(phis))
    latch = b.block
    assert latch is not None
    nxt = b.add(i, lw.const(step, I64))
    b.jump(header)
    i.incoming.append((latch, nxt))
    for phi, v in zip(phis, out, strict=True):
        phi.incoming.append((latch, v))
    b.position_at_end(done)
    return list(phis)


def carried_loops(
    lw: ArrayLowering, extents: Sequence[Value], init: list[Value], step: Step
) -> list[Value]:
    """Counted loops over ``extents`` (row-major) carrying values in phis: ``carried =
    init``, then ``carried = step(index, carried)`` for every index; returns the carried
    values after the nest (the builder is after it)."""
    zero = lw.const(0, I64)

    def level(k: int, carried: list[Value], index: list[Value]) -> list[Value]:
        if k == len(extents):
            return step(index, carried)
        return counted_loop(
            lw, zero, extents[k], 1, carried, lambda i, c: level(k + 1, c, [*index, i])
        )

    return level(0, init, [])


def _dtype(inst: Instruction) -> ScalarType:
    t = inst.type
    dtype = t.dtype if isinstance(t, ArrayType) else t
    assert isinstance(dtype, ScalarType)
    return dtype


def _product(lw: ArrayLowering, values: Sequence[Value]) -> Value:
    total = lw.const(1, I64)
    for v in values:
        total = lw.b.mul(total, v)
    return total


def _sqrt(lw: ArrayLowering, x: Value, dtype: ScalarType) -> Value:
    """``sqrt(x)`` of a sum of squares ``x`` in ``dtype``: through ``f64`` for ``f32``
    (correctly rounded both ways, so NumPy's ``sqrtf``); ``norm_sqrt``, whose derivative
    is 0 where ``x`` is 0 (a zero spread or vector: docs/ad.md)."""
    root = lw.b.math("norm_sqrt", lw.b.cast(x, F64))
    return lw.b.cast(root, dtype)


class _Reduction:
    """The scalar reduction of one output element: loops over the reduced axes."""

    def __init__(
        self, lw: ArrayLowering, inst: ops.Reduce, x: Reader, kept: list[Value], dims: list[Value]
    ) -> None:
        self.lw, self.inst, self.x = lw, inst, x
        self.kept = dict(zip([k for k in range(len(dims)) if k not in inst.axes], kept))
        self.extents = [dims[a] for a in inst.axes]
        self.dtype = _dtype(inst)
        self.source = element_type(inst.array)

    def element(self, index: list[Value]) -> Value:
        """The array's element at reduced ``index`` (kept axes at this output's)."""
        reduced = dict(zip(self.inst.axes, index, strict=True))
        full = [
            self.kept[k] if k in self.kept else reduced[k]
            for k in range(len(self.kept) + len(reduced))
        ]
        return self.x.at(full)

    def fold(self, init: Value, update: Callable[[Value, Value], Value]) -> Value:
        """``acc = init; acc = update(acc, element)`` over the reduced axes."""
        (acc,) = carried_loops(
            self.lw, self.extents, [init], lambda i, c: [update(c[0], self.element(i))]
        )
        return acc

    def total(self, term: Callable[[Value], Value]) -> Value:
        """``Σ term(element)`` in the result dtype. Floats add into :data:`LANES` partial
        sums along the innermost reduced axis (element ``i`` into sum ``i % LANES``, the
        last ``n % LANES`` into the first), combined pairwise at the end: independent
        additions, as NumPy's 8 accumulators, instead of one chain of dependent ones."""
        b, dtype, lw = self.lw.b, self.dtype, self.lw
        zero = lw.const(0.0 if dtype.is_float else 0, dtype)
        if not dtype.is_float or not self.extents:
            return self.fold(zero, lambda a, x: b.add(a, term(x)))
        *outer, n = self.extents
        main = b.binary(ops.BitAnd, n, lw.const(-LANES, I64))

        def row(index: list[Value], lanes: list[Value]) -> list[Value]:
            def block(i: Value, acc: list[Value]) -> list[Value]:
                at = [i, *(b.add(i, lw.const(j, I64)) for j in range(1, LANES))]
                return [b.add(acc[j], term(self.element([*index, at[j]]))) for j in range(LANES)]

            def rest(i: Value, acc: list[Value]) -> list[Value]:
                return [b.add(acc[0], term(self.element([*index, i]))), *acc[1:]]

            lanes = counted_loop(lw, lw.const(0, I64), main, LANES, lanes, block, "reduce.lanes")
            return counted_loop(lw, main, n, 1, lanes, rest, "reduce.rest")

        lanes = carried_loops(lw, outer, [zero] * LANES, row)
        while len(lanes) > 1:
            lanes = [b.add(lanes[k], lanes[k + 1]) for k in range(0, len(lanes), 2)]
        return lanes[0]

    def count(self) -> Value:
        return _product(self.lw, self.extents)

    def term(self, x: Value) -> Value:
        """What a kind of :data:`SUMS` adds up for element ``x``."""
        b, kind = self.lw.b, self.inst.kind
        y = b.cast(x, self.dtype)
        if kind == K.NORM1:
            return b.unary(ops.Abs, y)
        return b.mul(y, y) if kind == K.NORM2 else y

    def finish(self, total: Value) -> Value:
        """A kind of :data:`SUMS` from the sum of its terms."""
        b, kind = self.lw.b, self.inst.kind
        if kind == K.NORM2:
            return _sqrt(self.lw, total, self.dtype)
        if kind == K.MEAN:
            return b.binary(ops.FDiv, total, b.cast(self.count(), self.dtype))
        return total

    def value(self) -> Value:
        """The reduction's value, of the result dtype."""
        b, dtype, kind = self.lw.b, self.dtype, self.inst.kind
        c = self.lw.const
        if kind in SUMS:
            return self.finish(self.total(self.term))
        if kind == K.PROD:
            one = c(1.0 if dtype.is_float else 1, dtype)
            return self.fold(one, lambda a, x: b.mul(a, b.cast(x, dtype)))
        if kind in (K.VAR, K.STD):
            return self._variance()
        if kind in (K.ANY, K.ALL):
            zero = c(
                0.0 if self.source.is_float else (False if self.source.is_bool else 0), self.source
            )
            cls = ops.BitOr if kind == K.ANY else ops.BitAnd
            return self.fold(
                c(kind == K.ALL, I1), lambda a, x: b.binary(cls, a, b.cmp("ne", x, zero))
            )
        if kind in (K.ARGMIN, K.ARGMAX):
            return self._arg()
        if kind == K.PYSUM:  # CPython's order: 0 + a[0] + a[1] + ...
            zero = c(0.0 if dtype.is_float else 0, dtype)
            return self.fold(zero, lambda a, x: b.add(a, b.cast(x, dtype)))
        if kind in (K.PYMIN, K.PYMAX):
            return self._builtin_extremum()
        return self._extremum()

    def _builtin_extremum(self) -> Value:
        """CPython's ``min``/``max`` of the elements: the first one, replaced by each later
        one that compares ``<`` (``>``) to it; so a NaN is kept only in first place."""
        b = self.lw.b
        work = I64 if self.source.is_bool else self.source  # bools compare as 0/1
        pred = "lt" if self.inst.kind == K.PYMIN else "gt"
        first = b.cast(self.element([self.lw.const(0, I64)]), work)

        def update(acc: Value, x: Value) -> Value:
            y = b.cast(x, work)
            return b.select(b.cmp(pred, y, acc), y, acc)

        return b.cast(self.fold(first, update), self.dtype)

    def _variance(self) -> Value:
        b, dtype = self.lw.b, self.dtype
        total = self.total(lambda x: b.cast(x, dtype))
        n = self.count()
        mean = b.binary(ops.FDiv, total, b.cast(n, dtype))

        def squared(x: Value) -> Value:
            d = b.sub(b.cast(x, dtype), mean)
            return b.mul(d, d)

        sq = self.total(squared)
        dof = b.sub(n, self.lw.const(self.inst.ddof, I64))
        dof = b.select(b.cmp("gt", dof, self.lw.const(0, I64)), dof, self.lw.const(0, I64))
        var = b.binary(ops.FDiv, sq, b.cast(dof, dtype))
        return _sqrt(self.lw, var, dtype) if self.inst.kind == K.STD else var

    def _extremum(self) -> Value:
        """min, max (NaN propagates) and the inf-norm (max of |x|, 0 when empty)."""
        b, kind = self.lw.b, self.inst.kind
        t = self.dtype if kind == K.NORMINF else self.source
        work = I64 if t.is_bool else t  # bools compare as 0/1
        low = kind in (K.MIN, K.MINFROM)
        pred = "lt" if low else "gt"
        if kind == K.NORMINF:
            init = self.lw.const(0.0, work)
        elif work.is_float:
            init = self.lw.const(float("inf") if low else float("-inf"), work)
        elif t.is_bool:  # the identities of minfrom/maxfrom over bools: True, False
            init = self.lw.const(int(low), work)
        else:
            bound = (1 << (work.bits - 1)) - 1
            init = self.lw.const(bound if low else -bound - 1, work)

        def update(acc: Value, x: Value) -> Value:
            y = b.cast(x, work)
            if kind == K.NORMINF:
                y = b.unary(ops.Abs, y)
            take = b.cmp(pred, y, acc)
            if work.is_float:
                take = b.binary(ops.BitOr, take, b.cmp("ne", y, y))
            return b.select(take, y, acc)

        return b.cast(self.fold(init, update), self.dtype)

    def _arg(self) -> Value:
        """The flat index (C order over the reduced axes) of the first extremum; a NaN
        counts as one (``np.argmin``)."""
        b, kind = self.lw.b, self.inst.kind
        work = I64 if self.source.is_bool else self.source
        pred = "lt" if kind == K.ARGMIN else "gt"
        if work.is_float:
            best0 = self.lw.const(float("inf") if kind == K.ARGMIN else float("-inf"), work)
        else:
            bound = (1 << (work.bits - 1)) - 1
            best0 = self.lw.const(bound if kind == K.ARGMIN else -bound - 1, work)
        zero, one = self.lw.const(0, I64), self.lw.const(1, I64)

        def step(index: list[Value], carried: list[Value]) -> list[Value]:
            best, at, k = carried
            y = b.cast(self.element(index), work)
            take = b.cmp(pred, y, best)
            if work.is_float:  # the first NaN, unless the best is NaN already
                nan = b.binary(ops.BitAnd, b.cmp("ne", y, y), b.cmp("eq", best, best))
                take = b.binary(ops.BitOr, take, nan)
            return [b.select(take, y, best), b.select(take, k, at), b.add(k, one)]

        _, at, _ = carried_loops(self.lw, self.extents, [best0, zero, zero], step)
        return at


def _check_not_empty(lw: ArrayLowering, inst: ops.Reduce, dims: list[Value]) -> None:
    """NumPy's ValueError when a reduced axis of a kind without identity has length 0."""
    b = lw.b
    zero = lw.const(0, I64)
    empty: Value | None = None
    for a in inst.axes:
        test = b.cmp("eq", dims[a], zero)
        empty = test if empty is None else b.binary(ops.BitOr, empty, test)
    if empty is None:
        return
    with b.if_then(empty, "reduce.empty"):
        b.raise_("ValueError", EMPTY_MESSAGES[inst.kind])


def _lower_reduce(lw: ArrayLowering, inst: Instruction) -> Value | None:
    assert isinstance(inst, ops.Reduce)
    t = inst.array.type
    assert isinstance(t, ArrayType)
    dims = lw.dims(inst.array)
    if inst.kind in NO_IDENTITY:
        _check_not_empty(lw, inst, dims)
    x = lw.operand(inst.array, dims)
    if not isinstance(inst.type, ArrayType):  # every axis: a scalar
        return _Reduction(lw, inst, x, [], dims).value()
    kept_axes = [k for k in range(t.ndim) if k not in inst.axes]
    one, zero = lw.const(1, I64), lw.const(0, I64)
    if inst.keepdims:
        out_dims = [one if k in inst.axes else dims[k] for k in range(t.ndim)]
    else:
        out_dims = [dims[k] for k in kept_axes]
    out = lw.new_array(inst.type, out_dims)

    def store(kept: list[Value], value: Value) -> None:
        if inst.keepdims:
            at = dict(zip(kept_axes, kept, strict=True))
            lw.store(out, [at.get(k, zero) for k in range(t.ndim)], value)
        else:
            lw.store(out, kept, value)

    if inst.kind in SUMS and inst.axes and kept_axes and kept_axes[-1] == t.ndim - 1:
        with lw.loop_nest([dims[k] for k in kept_axes[:-1]], "reduce.out") as outer:
            _columns(lw, inst, x, dims, outer, store)
        return out
    with lw.loop_nest([dims[k] for k in kept_axes], "reduce.out") as kept:
        store(kept, _Reduction(lw, inst, x, kept, dims).value())
    return out


def _columns(
    lw: ArrayLowering,
    inst: ops.Reduce,
    x: Reader,
    dims: list[Value],
    outer: list[Value],
    store: Callable[[list[Value], Value], None],
) -> None:
    """A sum over leading axes with the last axis kept (``np.sum(A, axis=0)``): the
    outputs ``outer + [j .. j+COLUMNS)`` together, one loop over the reduced axes adding
    into ``COLUMNS`` sums (neighbouring elements of each row read together, independent
    additions); the last ``n % COLUMNS`` outputs one by one."""
    b = lw.b
    n = dims[-1]
    main = b.binary(ops.BitAnd, n, lw.const(-COLUMNS, I64))

    def block(j: Value, carried: list[Value]) -> list[Value]:
        cols = [j, *(b.add(j, lw.const(w, I64)) for w in range(1, COLUMNS))]
        parts = [_Reduction(lw, inst, x, [*outer, col], dims) for col in cols]
        zero = lw.const(0.0 if parts[0].dtype.is_float else 0, parts[0].dtype)

        def step(index: list[Value], sums: list[Value]) -> list[Value]:
            return [b.add(s, p.term(p.element(index))) for s, p in zip(sums, parts, strict=True)]

        totals = carried_loops(lw, parts[0].extents, [zero] * COLUMNS, step)
        for col, part, total in zip(cols, parts, totals, strict=True):
            store([*outer, col], part.finish(total))
        return []

    def single(j: Value, carried: list[Value]) -> list[Value]:
        store([*outer, j], _Reduction(lw, inst, x, [*outer, j], dims).value())
        return []

    counted_loop(lw, lw.const(0, I64), main, COLUMNS, [], block, "reduce.cols")
    counted_loop(lw, main, n, 1, [], single, "reduce.col")


def _lower_cumulate(lw: ArrayLowering, inst: Instruction) -> Value | None:
    assert isinstance(inst, ops.Cumulate)
    b = lw.b
    dims = lw.dims(inst.array)
    x = lw.operand(inst.array, dims)
    dtype = _dtype(inst)
    product = inst.kind == ops.CumKind.CUMPROD
    # -0.0, the exact identity of float addition: the first running sum is the first
    # element, -0.0 included, as NumPy's accumulate starts from it (fuzz seed 650066)
    init = lw.const(
        (1.0 if dtype.is_float else 1) if product else (-0.0 if dtype.is_float else 0), dtype
    )
    combine = b.mul if product else b.add
    if inst.axis is None:  # the flattened array, in C order
        out = lw.new_array(inst.type, [_product(lw, dims)])

        def flat(index: list[Value], carried: list[Value]) -> list[Value]:
            acc = combine(carried[0], b.cast(x.at(index), dtype))
            lw.store(out, [carried[1]], acc)
            return [acc, b.add(carried[1], lw.const(1, I64))]

        carried_loops(lw, dims, [init, lw.const(0, I64)], flat)
        return out
    axis = inst.axis
    out = lw.new_array(inst.type, dims)
    others = [k for k in range(len(dims)) if k != axis]
    with lw.loop_nest([dims[k] for k in others], "cumulate") as outer:

        def along(index: list[Value], carried: list[Value]) -> list[Value]:
            full = [*outer[:axis], index[0], *outer[axis:]]
            acc = combine(carried[0], b.cast(x.at(full), dtype))
            lw.store(out, full, acc)
            return [acc]

        carried_loops(lw, [dims[axis]], [init], along)
    return out


ARRAY_LOWERING.set([ops.Reduce], ArrayRule(lower=_lower_reduce, fuses=True))
ARRAY_LOWERING.set([ops.Cumulate], ArrayRule(lower=_lower_cumulate, fuses=True))
