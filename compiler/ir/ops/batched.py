"""``a @ b`` / ``np.matmul`` of operands of more than 2 dimensions (:class:`BatchMatmul`).

Inference types ``contract matmul`` of such operands (compiler/infer/rules_linalg.py
calls :func:`batched_matmul_type`) and materialisation replaces it by this operation
(compiler/infer/rules_batched.py); the reference interpreter runs ``np.matmul``
(compiler/ir/interp_reorder.py) and ``lower-arrays`` replaces it by loops
(passes/arrays/batched.py), which AD differentiates.
"""

from __future__ import annotations

from typing import ClassVar, final

from gradc.compiler.ir.core import Instruction, Value, VerifyContext
from gradc.compiler.ir.opclass import operation
from gradc.compiler.ir.ops.checks import array_operand
from gradc.compiler.ir.types import ArrayType, ScalarType, join

#: NumPy's message when the leading (batch) axes do not broadcast: the two sizes and the
#: axis counted from the end of the batch axes (NumPy's names both shapes, which an
#: error record cannot carry: docs/arrays_linalg.md).
BATCH_MISMATCH = (
    "operands could not be broadcast together with remapped shapes (sizes {0} and {1} at "
    "batch axis {2})"
)


def batched_matmul_type(lhs: ArrayType, rhs: ArrayType) -> ArrayType:
    """NumPy's ``matmul`` result type when an operand has more than 2 axes: the batch axes
    broadcast (``max`` of the two batch ranks; a 1-D operand has none), then ``n`` (``lhs``
    2-D or more) and ``m`` (``rhs`` 2-D or more); the promoted dtype, C-contiguous."""
    batch = max(lhs.ndim - 2, rhs.ndim - 2, 0)
    ndim = batch + int(lhs.ndim >= 2) + int(rhs.ndim >= 2)
    dtype = join(lhs.dtype, rhs.dtype)
    assert isinstance(dtype, ScalarType)
    return ArrayType(dtype, ndim, "C")


@final
@operation
class BatchMatmul(Instruction):
    """``np.matmul(lhs, rhs)`` with an operand of more than 2 axes: for each index of the
    broadcast batch axes, the matrix product of the last two axes (a 1-D operand is a
    row (``lhs``) or column (``rhs``) whose axis is dropped from the result), as NumPy.
    Raises NumPy's ValueError for a core dimension mismatch (``matmul: Input operand 1
    has a mismatch in its core dimension 0, ...``), then :data:`BATCH_MISMATCH` for batch
    axes that do not broadcast. A bool product is the OR of ANDs."""

    OPNAME: ClassVar[str] = "batchmatmul"
    OPERANDS: ClassVar[tuple[str, ...]] = ("lhs", "rhs")
    MAY_RAISE: ClassVar[bool] = True
    LOWERED_TO_LOOPS: ClassVar[bool] = True
    lhs: Value
    rhs: Value

    def verify_(self, ctx: VerifyContext) -> str | None:
        """Array operands, one of more than 2 axes; the type of
        :func:`batched_matmul_type`."""
        lhs = array_operand(ctx, self, self.lhs)
        if isinstance(lhs, str):
            return lhs
        rhs = array_operand(ctx, self, self.rhs)
        if isinstance(rhs, str):
            return rhs
        if max(lhs.ndim, rhs.ndim) <= 2:
            return "batchmatmul of operands of 2 axes or fewer (a contract matmul)"
        expected = batched_matmul_type(lhs, rhs)
        if self.type != expected:
            return f"batchmatmul result type is {self.type}, expected {expected}"
        return None
