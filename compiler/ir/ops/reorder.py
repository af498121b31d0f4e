"""Array functions that copy elements to new places: ``np.diag`` (:class:`Diag`),
``np.tril``/``np.triu`` (:class:`Triangle`), ``np.roll`` (:class:`Roll`) and ``np.sort``/
``np.argsort``/``np.median`` (:class:`Sort`).

Whole-array operations as those of :mod:`.linalg`: the front end emits them, inference
types them (compiler/infer/rules_reorder.py), the reference interpreter runs them with
NumPy (compiler/ir/interp_reorder.py) and ``lower-arrays`` replaces each by loops of
scalar IR before AD (passes/arrays/reorder.py, passes/arrays/sort.py). Each result
element is a load of one operand element (``median``: the mean of one or two), so AD
differentiates them through those loads: the derivative of a sort follows its
permutation, an element's adjoint goes back to the element it was copied from.
"""

from __future__ import annotations

from enum import StrEnum
from typing import ClassVar, final

from gradc.compiler.ir.core import Instruction, Value, VerifyContext
from gradc.compiler.ir.opclass import operation
from gradc.compiler.ir.ops.checks import array_operand
from gradc.compiler.ir.types import F64, I64, ArrayType, ScalarType


def _same_shape(ctx: VerifyContext, inst: Instruction, array: Value, ndim: int) -> str | None:
    """None when ``inst`` is a C array of ``array``'s dtype and rank ``ndim``."""
    t = array_operand(ctx, inst, array)
    if isinstance(t, str):
        return t
    expected = ArrayType(t.dtype, ndim, "C")
    if inst.type != expected:
        return f"{inst.OPNAME} result type is {inst.type}, expected {expected}"
    return None


def _index_operand(ctx: VerifyContext, inst: Instruction, value: Value) -> str | None:
    if value.type != I64:
        return f"{inst.OPNAME} operand {ctx.show(value)} has type {value.type}, expected i64"
    return None


@final
@operation
class Diag(Instruction):
    """``np.diag(array, k=diagonal)``. Of a 1-D array of length ``n``: a new C array of
    shape ``(n + |k|, n + |k|)``, zero but for ``array`` on diagonal ``k`` (``j - i ==
    k``). Of a 2-D array: a new 1-D C array of its diagonal ``k`` (NumPy returns a
    read-only view; gradc copies), empty when ``k`` lies outside the matrix."""

    OPNAME: ClassVar[str] = "diag"
    OPERANDS: ClassVar[tuple[str, ...]] = ("array", "diagonal")
    LOWERED_TO_LOOPS: ClassVar[bool] = True
    array: Value
    diagonal: Value

    def verify_(self, ctx: VerifyContext) -> str | None:
        """A 1-D or 2-D array, an ``i64`` diagonal, a C result of the other rank."""
        t = array_operand(ctx, self, self.array)
        if isinstance(t, str):
            return t
        if t.ndim not in (1, 2):
            return f"diag of {t}: a 1-D or 2-D array is required"
        return _index_operand(ctx, self, self.diagonal) or _same_shape(
            ctx, self, self.array, 3 - t.ndim
        )


@final
@operation
class Triangle(Instruction):
    """``np.tril(array, k)`` (``upper`` false: elements with ``j - i > k`` zeroed) or
    ``np.triu(array, k)`` (``upper``: elements with ``j - i < k`` zeroed), ``i, j`` the
    last two axes: a new C array of ``array``'s shape and dtype."""

    OPNAME: ClassVar[str] = "triangle"
    OPERANDS: ClassVar[tuple[str, ...]] = ("array", "diagonal")
    FLAGS: ClassVar[tuple[str, ...]] = ("upper",)
    LOWERED_TO_LOOPS: ClassVar[bool] = True
    array: Value
    diagonal: Value
    upper: bool = False

    def verify_(self, ctx: VerifyContext) -> str | None:
        """An array of rank 2 or more, an ``i64`` diagonal, a C result of its type."""
        t = array_operand(ctx, self, self.array)
        if isinstance(t, str):
            return t
        if t.ndim < 2:
            return f"triangle of {t}: an array of 2 or more dimensions is required"
        return _index_operand(ctx, self, self.diagonal) or _same_shape(
            ctx, self, self.array, t.ndim
        )


@final
@operation
class Roll(Instruction):
    """``np.roll(array, shift, axis)``: a new C array of ``array``'s shape whose element
    ``i`` along ``axis`` is ``array``'s element ``(i - shift) mod n`` (``n`` that axis's
    length; a length 0 rolls nothing). ``flat``: ``axis=None``, the elements rolled in C
    order (``axis`` is then 0)."""

    OPNAME: ClassVar[str] = "roll"
    OPERANDS: ClassVar[tuple[str, ...]] = ("array", "shift")
    ATTRS: ClassVar[tuple[str, ...]] = ("axis",)
    FLAGS: ClassVar[tuple[str, ...]] = ("flat",)
    LOWERED_TO_LOOPS: ClassVar[bool] = True
    axis: int
    array: Value
    shift: Value
    flat: bool = False

    def verify_(self, ctx: VerifyContext) -> str | None:
        """An array, ``0 <= axis < ndim`` (0 when ``flat``), an ``i64`` shift, a C result
        of its type."""
        t = array_operand(ctx, self, self.array)
        if isinstance(t, str):
            return t
        if not 0 <= self.axis < max(t.ndim, 1) or (self.flat and self.axis != 0):
            return f"roll axis {self.axis} is out of range for {t}"
        return _index_operand(ctx, self, self.shift) or _same_shape(ctx, self, self.array, t.ndim)


class SortKind(StrEnum):
    """What a :class:`Sort` gives of each row along its axis."""

    SORT = "sort"  # the sorted values (np.sort)
    ARGSORT = "argsort"  # the stable sorting permutation (np.argsort, int64)
    MEDIAN = "median"  # the median (np.median: the sorted axis removed)


def median_dtype(dtype: ScalarType) -> ScalarType:
    """``np.median``'s result dtype: a float dtype stays, ints and bools give ``float64``
    (``np.mean``'s)."""
    return dtype if dtype.is_float else F64


@final
@operation
class Sort(Instruction):
    """``np.sort(array, axis)``, ``np.argsort(array, axis)`` or ``np.median(array,
    axis)`` (:class:`SortKind`) of each row along ``axis`` (the front end's, negative
    counting from the end; inference makes it ``0 <= axis < ndim``). Values in
    ascending order with NaNs last, as NumPy's; ties keep their order (a stable sort:
    NumPy's default ``quicksort`` may order tied indices otherwise, its values are the
    same). ``median``: the middle value, or the mean of the two middle values in
    :func:`median_dtype`, NaN when the row holds a NaN or is empty, ``axis`` removed
    from the shape; a 1-D array's median is a scalar."""

    OPNAME: ClassVar[str] = "sort"
    OPERANDS: ClassVar[tuple[str, ...]] = ("array",)
    ATTRS: ClassVar[tuple[str, ...]] = ("kind", "axis")
    LOWERED_TO_LOOPS: ClassVar[bool] = True
    kind: SortKind
    axis: int
    array: Value

    def verify_(self, ctx: VerifyContext) -> str | None:
        """An array of rank 1 or more, ``0 <= axis < ndim``; the result: its type
        (``sort``), of ``i64`` (``argsort``), or one rank less in :func:`median_dtype`
        (``median``)."""
        t = array_operand(ctx, self, self.array)
        if isinstance(t, str):
            return t
        if t.ndim < 1:
            return f"sort of {t}: an array is required"
        if not 0 <= self.axis < t.ndim:
            return f"sort axis {self.axis} is out of range for {t}"
        expected: ArrayType | ScalarType
        if self.kind == SortKind.MEDIAN:
            dtype = median_dtype(t.dtype)
            expected = dtype if t.ndim == 1 else ArrayType(dtype, t.ndim - 1, "C")
        else:
            expected = ArrayType(I64 if self.kind == SortKind.ARGSORT else t.dtype, t.ndim, "C")
        if self.type != expected:
            return f"sort {self.kind} result type is {self.type}, expected {expected}"
        return None
