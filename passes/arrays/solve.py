"""``lower-arrays`` rule of ``linsolve`` (``np.linalg.inv``, ``solve``, ``det``;
compiler/ir/ops/solve.py): an LU factorisation with partial pivoting in loops.

The matrix is copied into ``U`` (the result dtype), the right-hand side into ``B``
(``inv``: the identity; ``solve``: ``b`` as ``n × m``). For each column ``k``: the pivot
is the first row ``p >= k`` of largest ``|U[p, k]|`` (LAPACK's ``idamax``), rows ``k``
and ``p`` of ``U`` and ``B`` are swapped (``det`` flips its sign when ``p != k``), an
exactly zero pivot raises NumPy's "Singular matrix" (``inv``/``solve``; ``det`` is then
0), and every row below gets ``U[i, :] -= f * U[k, :]``, ``B[i, :] -= f * B[k, :]`` with
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

from gradc.compiler.ir import ops
from gradc.compiler.ir.core import Instruction, Value
from gradc.compiler.ir.ops.solve import NOT_SQUARE, SINGULAR, SOLVE_MISMATCH
from gradc.compiler.ir.types import F32, F64, I64, ArrayType, ScalarType
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


def _operands(
    lw: ArrayLowering, inst: ops.LinalgSolve, t: ScalarType
) -> tuple[Value, Value, Value]:
    """``(n, U, B)``: the checked size, the matrix copied, the right-hand side as
    ``n × m`` (``det``: ``n × 0``)."""
    b = lw.b
    rows, cols = lw.dims(inst.array)
    with b.if_then(b.cmp("ne", rows, cols), "linsolve.square"):
        b.raise_("ValueError", NOT_SQUARE)
    n, zero, one = rows, lw.const(0, I64), lw.const(1, I64)
    matrix = ArrayType(t, 2, "C")
    if inst.kind == ops.SolveKind.SOLVE:
        (rhs,) = inst.rhs
        rt = rhs.type
        assert isinstance(rt, ArrayType)
        rdims = lw.dims(rhs)
        with b.if_then(b.cmp("ne", rdims[0], n), "linsolve.rhs"):
            b.raise_format("ValueError", SOLVE_MISMATCH[rt.ndim], [rdims[0], n])
        m = rdims[1] if rt.ndim == 2 else one
    else:
        m = n if inst.kind == ops.SolveKind.INV else zero
    u = lw.new_array(matrix, [n, n])
    with lw.loop_nest([n, n], "linsolve.copy") as index:
        lw.store(u, index, b.cast(lw.load(inst.array, index), t))
    fill = lw.const(0.0, t) if inst.kind == ops.SolveKind.INV else None
    rhs_copy = new_array(b, matrix, [n, m], fill)
    lw.shapes[rhs_copy] = [n, m]
    if inst.kind == ops.SolveKind.INV:
        with lw.loop_nest([n], "linsolve.eye") as (i,):
            lw.store(rhs_copy, [i, i], lw.const(1.0, t))
    elif inst.kind == ops.SolveKind.SOLVE:
        (rhs,) = inst.rhs
        with lw.loop_nest([n, m], "linsolve.rhs") as (i, j):
            at = [i, j] if len(lw.dims(rhs)) == 2 else [i]
            lw.store(rhs_copy, [i, j], b.cast(lw.load(rhs, at), t))
    return n, u, rhs_copy


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


# long-function: one elimination step's loops read better in one place
def _factor(lw: ArrayLowering, inst: ops.LinalgSolve, n: Value, u: Value, rhs: Value) -> Value:
    """Eliminate below the diagonal of ``u`` (rows of ``rhs`` alike); the determinant's
    sign (1.0 or -1.0)."""
    b = lw.b
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
        col.next = [b.select(b.cmp("ne", p, k), b.unary(ops.Neg, sign), sign)]
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
    lw: ArrayLowering, inst: ops.LinalgSolve, n: Value, u: Value, rhs: Value
) -> Value:
    """``U⁻¹ rhs`` into a new array of the result type (1-D for a 1-D ``b``)."""
    b = lw.b
    out_t = inst.type
    assert isinstance(out_t, ArrayType)
    m = lw.dims(rhs)[1]
    out = lw.new_array(out_t, [n, m] if out_t.ndim == 2 else [n])
    one = lw.const(1, I64)
    with lw.loop_nest([n, m], "linsolve.back") as (back, j):
        i = b.sub(b.sub(n, one), back)  # rows from the last up

        def at(row: Value) -> list[Value]:
            return [row, j] if out_t.ndim == 2 else [row]

        with counted_loop(b, b.add(i, one), n, [lw.load(rhs, [i, j])], "linsolve.dot") as q:
            term = b.mul(lw.load(u, [i, q.index]), lw.load(out, at(q.index)))
            q.next = [b.sub(q.values[0], term)]
        lw.store(out, at(i), b.binary(ops.FDiv, q.values[0], lw.load(u, [i, i])))
    return out


def _linalg_solve(lw: ArrayLowering, inst: Instruction) -> Value | None:
    assert isinstance(inst, ops.LinalgSolve)
    b = lw.b
    t = _dtype(inst)
    n, u, rhs = _operands(lw, inst, t)
    sign = _factor(lw, inst, n, u, rhs)
    if inst.kind != ops.SolveKind.DET:
        return _back_substitute(lw, inst, n, u, rhs)
    with counted_loop(b, lw.const(0, I64), n, [sign], "linsolve.det") as loop:
        loop.next = [b.mul(loop.values[0], lw.load(u, [loop.index, loop.index]))]
    return loop.values[0]


ARRAY_LOWERING.set([ops.LinalgSolve], ArrayRule(lower=_linalg_solve))
