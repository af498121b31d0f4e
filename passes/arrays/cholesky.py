"""``lower-arrays`` rule of ``linsolve cholesky`` (``np.linalg.cholesky(a)``;
compiler/ir/ops/solve.py): the Cholesky–Banachiewicz loops, row by row.

NumPy's square check first (ValueError "Last 2 dimensions of the array must be square").
Then for each matrix of a stack ``(..., n, n)`` and each row ``i``, for ``j <= i``::

    s = a[i, j] - sum(L[i, k] * L[j, k] for k < j)
    L[i, j] = sqrt(s) if i == j else s / L[j, j]

reading only ``a``'s lower triangle, as LAPACK's ``potrf`` with ``UPLO='L'`` (NumPy's
call); the strictly upper triangle of the result is 0. A diagonal ``s <= 0`` (the test of
OpenBLAS's ``potf2``, which NumPy's wheels call: a NaN pivot passes and NaNs follow, an
infinite one gives inf) raises NumPy's LinAlgError as ValueError "Matrix is not
positive definite". Rows are finished in another order than
LAPACK's blocked one: values agree to rounding. Every loop is counted (docs/ad.md), so AD
differentiates the loops as they ran (the derivative of the factor, to rounding).
``O(n³ / 3)`` work.
"""

from __future__ import annotations

from gradc.compiler.ir import ops, ufuncs
from gradc.compiler.ir.core import Value
from gradc.compiler.ir.ops.solve import NOT_POSITIVE_DEFINITE, NOT_SQUARE
from gradc.compiler.ir.types import I64, ArrayType
from gradc.passes.arrays.linalg_loops import counted_loop
from gradc.passes.arrays.loops import ArrayLowering


def cholesky(lw: ArrayLowering, inst: ops.LinalgSolve) -> Value:
    """The lower factors of ``inst.array``'s matrices: a new C array of its shape."""
    b = lw.b
    out_t = inst.type
    assert isinstance(out_t, ArrayType)
    t = out_t.dtype
    dims = lw.dims(inst.array)
    rows, cols = dims[-2:]
    with b.if_then(b.cmp("ne", rows, cols), "cholesky.square"):
        b.raise_("ValueError", NOT_SQUARE)
    n, zero, one = rows, lw.const(0, I64), lw.const(1, I64)
    zero_t, one_t = lw.const(0.0, t), lw.const(1.0, t)
    out = lw.new_array(out_t, [*dims[:-2], n, n])
    with lw.loop_nest([*dims[:-2], n], "cholesky.row") as at:
        batch, i = at[:-1], at[-1]
        with counted_loop(b, zero, b.add(i, one), label="cholesky.col") as col:
            j = col.index
            start = b.cast(lw.load(inst.array, [*batch, i, j]), t)
            with counted_loop(b, zero, j, [start], "cholesky.dot") as dot:
                k = dot.index
                term = b.mul(lw.load(out, [*batch, i, k]), lw.load(out, [*batch, j, k]))
                dot.next = [b.sub(dot.values[0], term)]
            s = dot.values[0]
            diagonal = b.cmp("eq", i, j)
            not_positive = b.cmp("le", s, zero_t)  # a NaN pivot passes: NaNs follow
            with b.if_then(b.binary(ops.BitAnd, diagonal, not_positive), "cholesky.error"):
                b.raise_("ValueError", NOT_POSITIVE_DEFINITE)
            # off the diagonal sqrt reads 1.0: its derivative stays finite (0 * inf is NaN)
            root = ufuncs.expand_element(b, "sqrt", [b.select(diagonal, s, one_t)], t)
            below = b.binary(ops.FDiv, s, b.select(diagonal, s, lw.load(out, [*batch, j, j])))
            lw.store(out, [*batch, i, j], b.select(diagonal, root, below))
        with counted_loop(b, b.add(i, one), n, label="cholesky.upper") as up:
            lw.store(out, [*batch, i, up.index], zero_t)
    return out
