"""Linear algebra on 1-D and 2-D arrays: ``@``/``np.matmul``/``np.dot``/``np.inner``/
``np.vdot`` (:class:`Contract`), ``np.outer`` (:class:`Outer`) and ``np.trace``
(:class:`Trace`).

These are whole-array operations: the front end emits them, inference types them, the
reference interpreter runs them with NumPy, and the ``lower-arrays`` pass
(passes/arrays/linalg.py) replaces each by a loop nest of scalar IR before AD, so they
never reach AD or codegen. Element types follow NumPy's promotion of the two operands
(:func:`~gradc.compiler.ir.types.join`); the operands are not cast beforehand: the loop
nest converts each element it reads.
"""

from __future__ import annotations

from enum import StrEnum
from typing import ClassVar, final

from gradc.compiler.ir.core import Instruction, Value, VerifyContext
from gradc.compiler.ir.opclass import operation
from gradc.compiler.ir.ops.checks import array_operand
from gradc.compiler.ir.types import I64, ArrayType, ScalarType, Type, join


class ContractKind(StrEnum):
    """Which NumPy function a :class:`Contract` is: they differ in the axes they pair,
    in how they treat operands of other ranks, and in their error messages."""

    MATMUL = "matmul"  # a @ b, np.matmul: last axis of a with the first of b (1-D: promoted)
    DOT = "dot"  # np.dot: the same pairing for 1-D/2-D, "shapes ... not aligned" errors
    INNER = "inner"  # np.inner: last axis of a with the last axis of b
    VDOT = "vdot"  # np.vdot: both flattened (C order), one scalar


def contract_type(kind: str, lhs: ArrayType, rhs: ArrayType) -> Type | str:
    """The result type of ``kind(lhs, rhs)`` (NumPy's), or the reason it is unsupported.

    Ranks 1 and 2 only. A 1-D·1-D product (and every ``vdot``) is a scalar of the
    promoted dtype; otherwise a C-contiguous array of rank ``lhs.ndim + rhs.ndim - 2``.
    A product of two bool arrays is bool (NumPy: OR of ANDs).
    """
    if lhs.ndim > 2 or rhs.ndim > 2:
        return f"np.{kind}() of arrays of more than 2 dimensions is not supported"
    dtype = join(lhs.dtype, rhs.dtype)
    assert isinstance(dtype, ScalarType)
    ndim = 0 if kind == ContractKind.VDOT else lhs.ndim + rhs.ndim - 2
    return dtype if ndim == 0 else ArrayType(dtype, ndim, "C")


def trace_dtype(dtype: ScalarType) -> ScalarType:
    """``np.trace``'s result dtype: NumPy's ``sum`` accumulator (ints and bools narrower
    than ``int64`` widen to ``int64``; floats keep theirs)."""
    return dtype if dtype.is_float else I64


@final
@operation
class Contract(Instruction):
    """``kind(lhs, rhs)`` for 1-D and 2-D operands: a sum of products over one pair of
    axes (:class:`ContractKind`), as NumPy computes it.

    ``matmul``/``dot``: ``(n,k)·(k,m) -> (n,m)``, ``(n,k)·(k,) -> (n,)``,
    ``(k,)·(k,m) -> (m,)``, ``(k,)·(k,) -> scalar``; ``inner`` pairs the last axes
    (``(n,k)·(m,k) -> (n,m)``); ``vdot`` flattens both (real operands: no conjugate) and
    requires equal sizes. Mismatched inner dimensions raise ValueError with NumPy's
    message (``matmul: Input operand 1 has a mismatch in its core dimension 0, ...``;
    ``shapes (2,3) and (4,) not aligned: 3 (dim 1) != 4 (dim 0)``; ``cannot reshape array
    of size 4 into shape (3,)`` for ``vdot``). Empty inner axes give zeros.
    """

    OPNAME: ClassVar[str] = "contract"
    LOWERED_TO_LOOPS: ClassVar[bool] = True
    OPERANDS: ClassVar[tuple[str, ...]] = ("lhs", "rhs")
    ATTRS: ClassVar[tuple[str, ...]] = ("kind",)
    MAY_RAISE: ClassVar[bool] = True
    kind: ContractKind
    lhs: Value
    rhs: Value

    def verify_attrs(self, ctx: VerifyContext) -> str | None:
        """The kind is a :class:`ContractKind`."""
        if self.kind not in tuple(ContractKind):
            return f"unknown contract kind {self.kind!r}"
        return None

    def verify_(self, ctx: VerifyContext) -> str | None:
        """Array operands of rank 1 or 2; the result type of :func:`contract_type`."""
        lhs = array_operand(ctx, self, self.lhs)
        if isinstance(lhs, str):
            return lhs
        rhs = array_operand(ctx, self, self.rhs)
        if isinstance(rhs, str):
            return rhs
        expected = contract_type(self.kind, lhs, rhs)
        if isinstance(expected, str):
            return expected
        if self.type != expected:
            return f"contract {self.kind} result type is {self.type}, expected {expected}"
        return None


@final
@operation
class Outer(Instruction):
    """``np.outer(lhs, rhs)``: ``out[i, j] = lhs.flat[i] * rhs.flat[j]``, a new
    C-contiguous ``(lhs.size, rhs.size)`` array of the promoted dtype (bool: AND)."""

    OPNAME: ClassVar[str] = "outer"
    LOWERED_TO_LOOPS: ClassVar[bool] = True
    OPERANDS: ClassVar[tuple[str, ...]] = ("lhs", "rhs")
    MAY_RAISE: ClassVar[bool] = True
    lhs: Value
    rhs: Value

    def verify_(self, ctx: VerifyContext) -> str | None:
        """Two arrays; the result a C-contiguous 2-D array of their promoted dtype."""
        lhs = array_operand(ctx, self, self.lhs)
        if isinstance(lhs, str):
            return lhs
        rhs = array_operand(ctx, self, self.rhs)
        if isinstance(rhs, str):
            return rhs
        expected = ArrayType(join(lhs.dtype, rhs.dtype), 2, "C")  # type: ignore[arg-type]
        if self.type != expected:
            return f"outer result type is {self.type}, expected {expected}"
        return None


@final
@operation
class Trace(Instruction):
    """``np.trace(array)`` of a 2-D array: the sum of ``array[i, i]`` for
    ``i < min(rows, cols)``, in :func:`trace_dtype` (0 for an empty diagonal)."""

    OPNAME: ClassVar[str] = "trace"
    LOWERED_TO_LOOPS: ClassVar[bool] = True
    OPERANDS: ClassVar[tuple[str, ...]] = ("array",)
    array: Value

    def verify_(self, ctx: VerifyContext) -> str | None:
        """A 2-D array; the result its :func:`trace_dtype`."""
        t = array_operand(ctx, self, self.array)
        if isinstance(t, str):
            return t
        if t.ndim != 2:
            return f"trace of {t}: a 2-D array is required"
        if self.type != trace_dtype(t.dtype):
            return f"trace result type is {self.type}, expected {trace_dtype(t.dtype)}"
        return None


#: A field of a mismatch message: ``(operand, axis)``, operand 0 the left one and 1 the
#: right one, axis ``-1`` for the operand's size (``vdot``).
Field = tuple[int, int]


def contract_axes(kind: str, lhs_ndim: int, rhs_ndim: int) -> tuple[int, int]:
    """The axis of ``lhs`` and of ``rhs`` a :class:`Contract` sums over (``vdot``: the
    flattened operands' only axis, given as 0, 0)."""
    if kind == ContractKind.VDOT:
        return 0, 0
    return lhs_ndim - 1, rhs_ndim - 1 if kind == ContractKind.INNER else 0


def contract_mismatch(kind: str, lhs_ndim: int, rhs_ndim: int) -> tuple[str, tuple[Field, ...]]:
    """NumPy's ValueError message for contracted axes of different lengths, as a
    :class:`~.control.RaiseFormat` template and the fields it formats.

    At most three run-time fields fit a message (``FORMAT_FIELDS``): where NumPy's
    message names four dimensions (``np.dot``/``np.inner`` of two 2-D arrays), the
    second operand's free dimension is shown as ``...`` (docs/arrays_linalg.md).
    """
    if kind == ContractKind.MATMUL:
        return (
            "matmul: Input operand 1 has a mismatch in its core dimension 0, with gufunc "
            "signature (n?,k),(k,m?)->(n?,m?) (size {0} is different from {1})",
            ((1, 0), (0, lhs_ndim - 1)),
        )
    if kind == ContractKind.VDOT:
        return "cannot reshape array of size {0} into shape ({1},)", ((1, -1), (0, -1))
    _, r_axis = contract_axes(kind, lhs_ndim, rhs_ndim)
    # np.inner shows the right operand transposed: its contracted axis first
    r_order = (r_axis, 1 - r_axis) if rhs_ndim == 2 else (0,)
    fields: list[Field] = [(0, k) for k in range(lhs_ndim)] + [(1, k) for k in r_order]
    lhs_text = (
        "(" + ",".join(f"{{{k}}}" for k in range(lhs_ndim)) + ("," if lhs_ndim == 1 else "") + ")"
    )
    r0 = lhs_ndim
    rhs_text = f"({{{r0}}},)" if rhs_ndim == 1 else f"({{{r0}}},{{{r0 + 1}}})"
    if len(fields) > 3:
        fields = fields[:3]
        rhs_text = f"({{{r0}}},...)"
    return (
        f"shapes {lhs_text} and {rhs_text} not aligned: {{{lhs_ndim - 1}}} "
        f"(dim {lhs_ndim - 1}) != {{{r0}}} (dim 0)",
        tuple(fields),
    )
