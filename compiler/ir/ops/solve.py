"""Dense linear systems: ``np.linalg.inv``, ``np.linalg.solve`` and ``np.linalg.det``
(:class:`LinalgSolve`) of 2-D operands.

A whole-array operation as those of :mod:`.linalg`: the front end emits it, inference
types it (compiler/infer/rules_solve.py), the reference interpreter runs NumPy's
function (compiler/ir/interp_reorder.py) and ``lower-arrays`` replaces it by an LU
factorisation with partial pivoting in loops of scalar IR (passes/arrays/solve.py), so AD
differentiates those loops (the derivative of ``inv`` is ``-A⁻¹ dA A⁻¹`` up to rounding).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import ClassVar, final

from gradc.compiler.ir.core import Instruction, Value, VerifyContext
from gradc.compiler.ir.ops.checks import array_operand
from gradc.compiler.ir.types import F32, F64, ArrayType, ScalarType

#: NumPy's LinAlgError messages (raised as ValueError: LinAlgError is its subclass).
NOT_SQUARE = "Last 2 dimensions of the array must be square"
SINGULAR = "Singular matrix"
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


def solve_dtype(*dtypes: ScalarType) -> ScalarType:
    """NumPy's ``linalg`` result dtype: float32 when every operand is float32, else
    float64 (ints and bools computed as float64)."""
    return F32 if all(d == F32 for d in dtypes) else F64


@final
@dataclass(eq=False, slots=True)
class LinalgSolve(Instruction):
    """``np.linalg.<kind>`` of a 2-D ``array`` (:class:`SolveKind`; ``rhs`` is ``solve``'s
    ``b``, 1-D or 2-D, and absent otherwise). ``inv``/``solve`` give a new C array of
    :func:`solve_dtype`; ``det`` a scalar of it (1.0 for a 0×0 matrix, 0.0 for a singular
    one). A matrix that is not square raises ValueError (:data:`NOT_SQUARE`); ``inv``/
    ``solve`` of a matrix whose LU factorisation meets an exactly zero pivot raise
    ValueError (:data:`SINGULAR`); a right-hand side of another length raises
    :data:`SOLVE_MISMATCH`."""

    OPNAME: ClassVar[str] = "linsolve"
    OPERANDS: ClassVar[tuple[str, ...]] = ("array", "rhs")
    ATTRS: ClassVar[tuple[str, ...]] = ("kind",)
    MAY_RAISE: ClassVar[bool] = True
    LOWERED_TO_LOOPS: ClassVar[bool] = True
    kind: SolveKind
    array: Value
    rhs: tuple[Value, ...]

    def verify_(self, ctx: VerifyContext) -> str | None:
        """A 2-D array (and for ``solve`` one 1-D or 2-D ``rhs``); the result of
        :func:`solve_dtype`, the ``rhs``'s rank for ``solve``, 2-D for ``inv``."""
        t = array_operand(ctx, self, self.array)
        if isinstance(t, str):
            return t
        if t.ndim != 2:
            return f"linsolve of {t}: a 2-D array is required"
        if len(self.rhs) != int(self.kind == SolveKind.SOLVE):
            return f"linsolve {self.kind} has {len(self.rhs)} right-hand sides"
        dtypes = [t.dtype]
        ndim = 0 if self.kind == SolveKind.DET else 2
        for v in self.rhs:
            r = array_operand(ctx, self, v)
            if isinstance(r, str):
                return r
            if r.ndim not in (1, 2):
                return f"linsolve right-hand side {ctx.show(v)} has type {r}, expected 1-D or 2-D"
            dtypes.append(r.dtype)
            ndim = r.ndim
        dtype = solve_dtype(*dtypes)
        expected = dtype if ndim == 0 else ArrayType(dtype, ndim, "C")
        if self.type != expected:
            return f"linsolve {self.kind} result type is {self.type}, expected {expected}"
        return None
