"""Dense linear systems: ``np.linalg.inv``, ``np.linalg.solve`` and ``np.linalg.det``
(:class:`LinalgSolve`) of matrices and stacks of them (``(..., n, n)``).

A whole-array operation as those of :mod:`.linalg`: the front end emits it, inference
types it (compiler/infer/rules_solve.py), the reference interpreter runs NumPy's
function (compiler/ir/interp_reorder.py) and ``lower-arrays`` replaces it by an LU
factorisation with partial pivoting in loops of scalar IR (passes/arrays/solve.py), so AD
differentiates those loops (the derivative of ``inv`` is ``-A⁻¹ dA A⁻¹`` up to rounding).
"""

from __future__ import annotations

from enum import StrEnum
from typing import ClassVar, final

from gradc.compiler.ir.core import Instruction, Value, VerifyContext
from gradc.compiler.ir.opclass import operation
from gradc.compiler.ir.ops.checks import array_operand
from gradc.compiler.ir.types import F32, F64, ArrayType, ScalarType

#: NumPy's LinAlgError messages (raised as ValueError: LinAlgError is its subclass).
NOT_SQUARE = "Last 2 dimensions of the array must be square"
SINGULAR = "Singular matrix"
NOT_POSITIVE_DEFINITE = "Matrix is not positive definite"
#: NumPy's ValueError of ``solve`` for a right-hand side of another length ({0}: its
#: length, {1}: the matrix's).
SOLVE_MISMATCH = {
    1: "solve1: Input operand 1 has a mismatch in its core dimension 0, with gufunc "
    "signature (m,m),(m)->(m) (size {0} is different from {1})",
    2: "solve: Input operand 1 has a mismatch in its core dimension 0, with gufunc "
    "signature (m,m),(m,n)->(m,n) (size {0} is different from {1})",
}


class SolveKind(StrEnum):
    """Which function a :class:`LinalgSolve` is."""

    INV = "inv"  # np.linalg.inv(a)
    SOLVE = "solve"  # np.linalg.solve(a, b)
    DET = "det"  # np.linalg.det(a)
    CHOLESKY = "cholesky"  # np.linalg.cholesky(a): lower triangular


def solve_type(kind: SolveKind, a: ArrayType, b: ArrayType | None) -> ArrayType | ScalarType:
    """NumPy 2's result type of ``np.linalg.<kind>`` of ``a`` (``n × n`` matrices, 2-D or
    more) and ``solve``'s ``b``: ``inv`` and ``cholesky`` ``a``'s rank; ``det`` the batch axes (a scalar of
    one matrix); ``solve`` of a 1-D ``b`` (one vector, NumPy's ``b.ndim == 1`` rule) ``a``'s
    rank less one, else the broadcast batch axes and ``(n, k)``. C arrays of
    :func:`solve_dtype`."""
    dtype = solve_dtype(a.dtype, *([b.dtype] if b is not None else []))
    if kind == SolveKind.DET:
        return dtype if a.ndim == 2 else ArrayType(dtype, a.ndim - 2, "C")
    if kind in (SolveKind.INV, SolveKind.CHOLESKY) or b is None:
        return ArrayType(dtype, a.ndim, "C")
    if b.ndim == 1:
        return ArrayType(dtype, a.ndim - 1, "C")
    return ArrayType(dtype, max(a.ndim, b.ndim), "C")


def solve_dtype(*dtypes: ScalarType) -> ScalarType:
    """NumPy's ``linalg`` result dtype: float32 when every operand is float32, else
    float64 (ints and bools computed as float64)."""
    return F32 if all(d == F32 for d in dtypes) else F64


@final
@operation
class LinalgSolve(Instruction):
    """``np.linalg.<kind>`` of ``array``, a matrix or a stack ``(..., n, n)`` of them
    (:class:`SolveKind`; ``rhs`` is ``solve``'s ``b``, ``(n,)`` or ``(..., n, k)``, and
    absent otherwise), of the type :func:`solve_type` gives: ``inv``/``solve`` new C
    arrays, ``det`` a scalar of one matrix or an array of the batch axes (1.0 for a 0×0
    matrix, 0.0 for a singular one). Matrices that are not square raise ValueError
    (:data:`NOT_SQUARE`); a right-hand side of another length :data:`SOLVE_MISMATCH`;
    batch axes that do not broadcast
    :data:`~gradc.compiler.ir.ops.batched.BATCH_MISMATCH`; ``inv``/``solve`` of a matrix
    whose LU factorisation meets an exactly zero pivot ValueError (:data:`SINGULAR`);
    ``cholesky`` (the lower factor ``L``, ``L @ L.T == a``, from ``a``'s lower triangle)
    of a matrix that is not positive definite ValueError (:data:`NOT_POSITIVE_DEFINITE`)."""

    OPNAME: ClassVar[str] = "linsolve"
    OPERANDS: ClassVar[tuple[str, ...]] = ("array", "rhs")
    ATTRS: ClassVar[tuple[str, ...]] = ("kind",)
    MAY_RAISE: ClassVar[bool] = True
    LOWERED_TO_LOOPS: ClassVar[bool] = True
    kind: SolveKind
    array: Value
    rhs: tuple[Value, ...]

    def verify_(self, ctx: VerifyContext) -> str | None:
        """An array of 2 or more axes (and for ``solve`` one ``rhs`` of 1 or more); the
        result of :func:`solve_type`."""
        t = array_operand(ctx, self, self.array)
        if isinstance(t, str):
            return t
        if t.ndim < 2:
            return f"linsolve of {t}: an array of 2 or more axes is required"
        if len(self.rhs) != int(self.kind == SolveKind.SOLVE):
            return f"linsolve {self.kind} has {len(self.rhs)} right-hand sides"
        rhs: ArrayType | None = None
        for v in self.rhs:
            r = array_operand(ctx, self, v)
            if isinstance(r, str):
                return r
            if r.ndim < 1:
                return f"linsolve right-hand side {ctx.show(v)} has type {r}, expected an array"
            rhs = r
        expected = solve_type(self.kind, t, rhs)
        if self.type != expected:
            return f"linsolve {self.kind} result type is {self.type}, expected {expected}"
        return None
