"""``lower-arrays`` rule of ``linsolve`` (``np.linalg.inv``, ``solve``, ``det``;
compiler/ir/ops/solve.py): an LU factorisation with partial pivoting in loops
(``cholesky``: passes/arrays/cholesky.py).

Checks first, in NumPy's order: square matrices, ``b``'s core size, then the batch axes
(a stack ``(..., n, n)`` broadcasts against ``b``'s ``(..., n, k)``: equal sizes, or
one of them 1). Then for each matrix of the (broadcast) stack: the matrix is copied into
``U`` (the result dtype), the right-hand side into ``B`` (``inv``: the identity;
``solve``: ``b`` as ``n × m``), both scratch arrays reused by every matrix. For each column ``k``: the pivot
is the first row ``p >= k`` of largest ``|U[p, k]|`` (LAPACK's ``idamax``), rows ``k``
and ``p`` of ``U`` and ``B`` are swapped (``det`` flips its sign when ``p != k``), an
exactly zero pivot raises NumPy's "Singular matrix" (``inv``/``solve``; ``det`` first
swaps in a later column with a nonzero entry, if any, and is then 0: see
:func:`_zero_column` for why), and every row below gets ``U[i, :] -= f * U[k, :]``, ``B[i, :] -= f * B[k, :]`` with
``f = U[i, k] * (1 / U[k, k])`` (LAPACK's scaling; ``U[i, k] / U[k, k]`` for a pivot
below the dtype's smallest normal, whose reciprocal overflows, as dgetrf2). The order of operations is not
LAPACK's blocked one: values agree to rounding, and a nearly singular matrix may meet an
exactly zero pivot in one and not in the other. ``inv``/``solve`` finish by back substitution; ``det`` is
the sign times the product of the diagonal (NumPy computes ``sign * exp(Σ log|u_ii|)``:
the two agree to rounding).

Every loop is counted (docs/ad.md), so AD differentiates the elimination as it ran: the
pivot choices are constant around an input whose pivots are not tied, and the
derivative is that of ``A⁻¹``, ``A⁻¹ b``, ``det A`` (to rounding). ``O(n³)`` work, not
blocked: NumPy's LAPACK is faster on large matrices.
"""

from __future__ import annotations

from dataclasses import dataclass

from gradc.compiler.ir import ops
from gradc.compiler.ir.core import Instruction, Value
from gradc.compiler.ir.ops.solve import NOT_SQUARE, SINGULAR, SOLVE_MISMATCH
from gradc.compiler.ir.types import F32, F64, I64, ArrayType, ScalarType
from gradc.passes.arrays.batched import batch_dims, batch_index
from gradc.passes.arrays.cholesky import cholesky
from gradc.passes.arrays.linalg_loops import counted_loop, new_array
from gradc.passes.arrays.loops import ArrayLowering
from gradc.passes.arrays.table import ARRAY_LOWERING, ArrayRule

#: The smallest positive normal number per dtype (LAPACK's ``sfmin``, NumPy's ``tiny``).
_SMALLEST_NORMAL = {F64: 2.0**-1022, F32: 2.0**-126}


def _dtype(inst: ops.LinalgSolve) -> ScalarType:
    t = inst.type
    d = t.dtype if isinstance(t, ArrayType) else t
    assert isinstance(d, ScalarType)
    return d


@dataclass(frozen=True)
class _System:
    """One matrix's system, solved in scratch arrays reused by every matrix of a stack:
    ``u`` (``n × n``, the matrix in the result dtype) and ``rhs`` (``n × m``: the identity
    for ``inv``, ``b`` for ``solve``, ``n × 0`` for ``det``), ``flip`` (``det`` only: one
    element, :func:`_zero_column`'s sign factor); ``batch`` the broadcast batch sizes,
    ``a_batch``/``b_batch`` the operands' own."""

    n: Value
    m: Value
    u: Value
    rhs: Value
    batch: list[Value]
    a_batch: list[Value]
    b_batch: list[Value]
    flip: Value | None = None


def _system(lw: ArrayLowering, inst: ops.LinalgSolve, t: ScalarType) -> _System:
    """Check the operands in NumPy's order (square matrices, ``b``'s core size, the batch
    axes) and make the scratch arrays."""
    b = lw.b
    ad = lw.dims(inst.array)
    rows, cols = ad[-2:]
    with b.if_then(b.cmp("ne", rows, cols), "linsolve.square"):
        b.raise_("ValueError", NOT_SQUARE)
    n, zero, one = rows, lw.const(0, I64), lw.const(1, I64)
    b_batch: list[Value] = []
    if inst.kind == ops.SolveKind.SOLVE:
        (rhs,) = inst.rhs
        rt = rhs.type
        assert isinstance(rt, ArrayType)
        rdims = lw.dims(rhs)
        core = rdims[0] if rt.ndim == 1 else rdims[-2]
        with b.if_then(b.cmp("ne", core, n), "linsolve.rhs"):
            b.raise_format("ValueError", SOLVE_MISMATCH[min(rt.ndim, 2)], [core, n])
        m = rdims[-1] if rt.ndim >= 2 else one
        b_batch = rdims[:-2]
    else:
        m = n if inst.kind == ops.SolveKind.INV else zero
    a_batch = ad[:-2]
    batch = batch_dims(lw, a_batch, b_batch)
    matrix = ArrayType(t, 2, "C")
    u, rhs_copy = lw.new_array(matrix, [n, n]), new_array(b, matrix, [n, m], None)
    lw.shapes[rhs_copy] = [n, m]
    det = inst.kind == ops.SolveKind.DET
    flip = lw.new_array(ArrayType(t, 1, "C"), [one]) if det else None
    return _System(n, m, u, rhs_copy, batch, a_batch, b_batch, flip)


def _load(lw: ArrayLowering, inst: ops.LinalgSolve, sys: _System, index: list[Value]) -> None:
    """Copy matrix ``index`` of the stack (its batch indices) into ``sys.u`` and its
    right-hand side into ``sys.rhs``."""
    b = lw.b
    t = _dtype(inst)
    n, m = sys.n, sys.m
    a_at = batch_index(lw, sys.a_batch, index)
    with lw.loop_nest([n, n], "linsolve.copy") as ij:
        lw.store(sys.u, ij, b.cast(lw.load(inst.array, [*a_at, *ij]), t))
    if inst.kind == ops.SolveKind.INV:
        with lw.loop_nest([n, m], "linsolve.eye") as (i, j):
            eye = b.select(b.cmp("eq", i, j), lw.const(1.0, t), lw.const(0.0, t))
            lw.store(sys.rhs, [i, j], eye)
    elif inst.kind == ops.SolveKind.SOLVE:
        (rhs,) = inst.rhs
        b_at = batch_index(lw, sys.b_batch, index)
        vector = len(lw.dims(rhs)) == 1
        with lw.loop_nest([n, m], "linsolve.rhs") as (i, j):
            at = [i] if vector else [*b_at, i, j]
            lw.store(sys.rhs, [i, j], b.cast(lw.load(rhs, at), t))


def _pivot_row(lw: ArrayLowering, u: Value, k: Value, n: Value, t: ScalarType) -> Value:
    """The first row ``p >= k`` of largest ``|u[p, k]|``."""
    b = lw.b
    with counted_loop(b, k, n, [lw.const(-1.0, t), k], "linsolve.pivot") as loop:
        best, at = loop.values
        size = b.unary(ops.Abs, lw.load(u, [loop.index, k]))
        take = b.cmp("gt", size, best)
        loop.next = [b.select(take, size, best), b.select(take, loop.index, at)]
    return loop.values[1]


def _swap(lw: ArrayLowering, x: Value, k: Value, p: Value, width: Value) -> None:
    with lw.loop_nest([width], "linsolve.swap") as (j,):
        a, c = lw.load(x, [k, j]), lw.load(x, [p, j])
        lw.store(x, [k, j], c)
        lw.store(x, [p, j], a)


def _zero_column(
    lw: ArrayLowering, u: Value, k: Value, n: Value, t: ScalarType, flip: Value
) -> Value:
    """``det`` only, after the row pivot of column ``k``: where ``U[k:, k]`` is all zero,
    swap in the first later column with a nonzero entry in rows ``k:`` and pivot its rows
    again; the factor (1.0 or -1.0) the swaps put on the sign, passed through ``flip``
    (a 1-element scratch array of the system).

    Partial pivoting alone would leave a zero pivot ``u_kk`` with ``k < n - 1`` and factor
    the rows below without it, so AD of the product of pivots would miss the terms of
    ``du_kk`` times the later pivots' derivatives (``0 · ∞`` in exact arithmetic: the
    adjugate of a rank n - 1 matrix is not zero). With the swap, a rank n - 1 matrix
    meets its one zero pivot last, where the product rule gives the adjugate exactly
    (:func:`_determinant`); a matrix of lower rank meets two or more (every derivative 0,
    as ``adj(A) = 0``)."""
    b = lw.b
    none = lw.const(-1, I64)
    at = [lw.const(0, I64)]
    lw.store(flip, at, lw.const(1.0, t))
    next_k = b.add(k, lw.const(1, I64))
    with b.if_then(b.cmp("eq", lw.load(u, [k, k]), lw.const(0.0, t)), "linsolve.zerocol"):
        with counted_loop(b, next_k, n, [none], "linsolve.nzcol") as cols:
            (found,) = cols.values
            with counted_loop(b, k, n, [none], "linsolve.nzrow") as rows:
                nonzero = b.cmp("ne", lw.load(u, [rows.index, cols.index]), lw.const(0.0, t))
                rows.next = [b.select(nonzero, rows.index, rows.values[0])]
            first = b.select(b.cmp("ge", rows.values[0], lw.const(0, I64)), cols.index, none)
            cols.next = [b.select(b.cmp("ge", found, lw.const(0, I64)), found, first)]
        q = cols.values[0]
        with b.if_then(b.cmp("ge", q, lw.const(0, I64)), "linsolve.colswap"):
            with lw.loop_nest([n], "linsolve.colswap") as (i,):
                a, c = lw.load(u, [i, k]), lw.load(u, [i, q])
                lw.store(u, [i, k], c)
                lw.store(u, [i, q], a)
            p = _pivot_row(lw, u, k, n, t)
            _swap(lw, u, k, p, n)
            once = b.select(b.cmp("ne", p, k), lw.const(1.0, t), lw.const(-1.0, t))
            lw.store(flip, at, once)
    return lw.load(flip, at)


# long-function: one elimination step's loops read better in one place
def _factor(lw: ArrayLowering, inst: ops.LinalgSolve, sys: _System) -> Value:
    """Eliminate below the diagonal of ``sys.u`` (rows of ``sys.rhs`` alike); the
    determinant's sign (1.0 or -1.0)."""
    b = lw.b
    n, u, rhs = sys.n, sys.u, sys.rhs
    t = _dtype(inst)
    zero_t, one_t = lw.const(0.0, t), lw.const(1.0, t)
    m = lw.dims(rhs)[1]
    det = inst.kind == ops.SolveKind.DET
    with counted_loop(b, lw.const(0, I64), n, [one_t], "linsolve.column") as col:
        k = col.index
        p = _pivot_row(lw, u, k, n, t)
        _swap(lw, u, k, p, n)
        _swap(lw, rhs, k, p, m)
        (sign,) = col.values
        sign = b.select(b.cmp("ne", p, k), b.unary(ops.Neg, sign), sign)
        if det:
            assert sys.flip is not None
            sign = b.mul(sign, _zero_column(lw, u, k, n, t, sys.flip))
        col.next = [sign]
        pivot = lw.load(u, [k, k])
        singular = b.cmp("eq", pivot, zero_t)
        if not det:
            with b.if_then(singular, "linsolve.singular"):
                b.raise_("ValueError", SINGULAR)
        divisor = b.select(singular, one_t, pivot) if det else pivot
        scale = b.binary(ops.FDiv, one_t, divisor)
        # LAPACK's dgetrf2: by 1/pivot, or divide by a pivot below the smallest normal
        # (its reciprocal overflows: 0 * inf would be NaN where the quotient is 0)
        normal = b.cmp("ge", b.unary(ops.Abs, divisor), lw.const(_SMALLEST_NORMAL[t], t))
        with counted_loop(b, b.add(k, lw.const(1, I64)), n, label="linsolve.row") as row:
            i = row.index
            below = lw.load(u, [i, k])
            f = b.select(normal, b.mul(below, scale), b.binary(ops.FDiv, below, divisor))
            if det:
                f = b.select(singular, zero_t, f)
            lw.store(u, [i, k], f)
            with counted_loop(b, b.add(k, lw.const(1, I64)), n, label="linsolve.upd") as c:
                j = c.index
                lw.store(u, [i, j], b.sub(lw.load(u, [i, j]), b.mul(f, lw.load(u, [k, j]))))
            with lw.loop_nest([m], "linsolve.rhsupd") as (j,):
                lw.store(rhs, [i, j], b.sub(lw.load(rhs, [i, j]), b.mul(f, lw.load(rhs, [k, j]))))
    return col.values[0]


def _back_substitute(
    lw: ArrayLowering, sys: _System, out: Value, index: list[Value], vector: bool
) -> None:
    """``U⁻¹ rhs`` into matrix ``index`` of ``out`` (a vector of it for a 1-D ``b``)."""
    b = lw.b
    n, u, rhs = sys.n, sys.u, sys.rhs
    one = lw.const(1, I64)
    with lw.loop_nest([n, sys.m], "linsolve.back") as (back, j):
        i = b.sub(b.sub(n, one), back)  # rows from the last up

        def at(row: Value) -> list[Value]:
            return [*index, row] if vector else [*index, row, j]

        with counted_loop(b, b.add(i, one), n, [lw.load(rhs, [i, j])], "linsolve.dot") as q:
            term = b.mul(lw.load(u, [i, q.index]), lw.load(out, at(q.index)))
            q.next = [b.sub(q.values[0], term)]
        lw.store(out, at(i), b.binary(ops.FDiv, q.values[0], lw.load(u, [i, i])))


def _determinant(lw: ArrayLowering, sys: _System, sign: Value, t: ScalarType) -> Value:
    """``sign · Π u_ii`` of the factored matrix, as NumPy's ``sign · exp(logdet)``: an
    exactly zero pivot gives +0.0 (NumPy's sign 0), a NaN beside an infinite pivot too.

    The zero is the product itself (``+ 0.0`` makes ``-0.0`` +0.0), never a constant,
    so that derivatives hold at a singular matrix: with one zero pivot ``u_kk`` (rank
    n - 1) the product rule leaves ``sign · Π_{i≠k} u_ii · du_kk``, the adjugate's
    ``adj(A)ᵀ : dA`` (Jacobi's formula), whose ``du_kk`` comes from the elimination steps
    before ``k``; with two or more, every term has a zero factor, as ``adj(A) = 0``."""
    b = lw.b
    zero_t, one_t = lw.const(0.0, t), lw.const(1.0, t)
    with counted_loop(b, lw.const(0, I64), sys.n, [sign, zero_t], "linsolve.det") as loop:
        u_ii = lw.load(sys.u, [loop.index, loop.index])
        pivots = b.select(b.cmp("eq", u_ii, zero_t), one_t, loop.values[1])
        loop.next = [b.mul(loop.values[0], u_ii), pivots]
    product, zero_pivots = loop.values
    zeroed = b.add(product, zero_t)
    zeroed = b.select(b.cmp("ne", zeroed, zeroed), zero_t, zeroed)  # inf · 0
    return b.select(b.cmp("ne", zero_pivots, zero_t), zeroed, product)


def _linalg_solve(lw: ArrayLowering, inst: Instruction) -> Value | None:
    assert isinstance(inst, ops.LinalgSolve)
    if inst.kind == ops.SolveKind.CHOLESKY:
        return cholesky(lw, inst)
    t = _dtype(inst)
    sys = _system(lw, inst, t)
    out_t = inst.type
    det = inst.kind == ops.SolveKind.DET
    zero = lw.const(0, I64)
    if isinstance(out_t, ArrayType):
        vector = not det and out_t.ndim == len(sys.batch) + 1
        core = [] if det else [sys.n] if vector else [sys.n, sys.m]
        out = lw.new_array(out_t, [*sys.batch, *core])
    else:  # the determinant of one matrix
        vector, out = False, lw.new_array(ArrayType(t, 1, "C"), [lw.const(1, I64)])
    with lw.loop_nest(sys.batch, "linsolve.batch") as index:
        _load(lw, inst, sys, index)
        sign = _factor(lw, inst, sys)
        if det:
            value = _determinant(lw, sys, sign, t)
            lw.store(out, index if isinstance(out_t, ArrayType) else [zero], value)
        else:
            _back_substitute(lw, sys, out, index, vector)
    return out if isinstance(out_t, ArrayType) else lw.load(out, [zero])


ARRAY_LOWERING.set([ops.LinalgSolve], ArrayRule(lower=_linalg_solve))
