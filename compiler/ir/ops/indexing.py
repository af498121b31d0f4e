"""Indexing that copies (NumPy's advanced indexing), boolean-mask writes and ``a.flat[i]``.

``take`` (``x[idx]`` with an integer array ``idx``) and ``compress`` (``x[mask]`` with a
boolean array ``mask``) make new C-contiguous arrays; the ``lower-arrays`` pass replaces
them by loops (passes/arrays/indexing.py), as ``maskassign`` (``x[mask] = v``) and
``indexassign`` (``x[idx] = v``).
``flatindex`` checks a flat index for
``a.flat[i]``.
"""

from __future__ import annotations

from typing import ClassVar, final

from gradc.compiler.ir.core import Instruction, Value, VerifyContext
from gradc.compiler.ir.opclass import operation
from gradc.compiler.ir.ops.checks import array_operand, front_end_only
from gradc.compiler.ir.types import I1, I64, NONE, ArrayType, ScalarType

#: NumPy's messages (``{0}``, ``{1}``... the run-time numbers).
FLAT_INDEX_ERROR = "index {0} is out of bounds for size {1}"
MASK_ERROR = (
    "boolean index did not match indexed array along axis {0}; size of axis is {1} but size "
    "of corresponding boolean axis is {2}"
)
MASK_ASSIGN_ERROR = (
    "NumPy boolean array indexing assignment cannot assign {0} input values to the {1} "
    "output values where the mask is true"
)


@final
@operation
class Take(Instruction):
    """``array[index]`` for an integer array ``index``: a new C array of shape
    ``index.shape + array.shape[1:]`` whose element ``[j..., k...]`` is
    ``array[index[j...], k...]``. A negative index counts from the end once; one still
    outside axis 0 raises IndexError("index 5 is out of bounds for axis 0 with size 3").
    """

    OPNAME: ClassVar[str] = "take"
    OPERANDS: ClassVar[tuple[str, ...]] = ("array", "index")
    MAY_RAISE: ClassVar[bool] = True
    LOWERED_TO_LOOPS: ClassVar[bool] = True
    array: Value
    index: Value

    def verify_(self, ctx: VerifyContext) -> str | None:
        """An array, an integer (not bool) index array, the C result of their ranks."""
        t = array_operand(ctx, self, self.array)
        if isinstance(t, str):
            return t
        i = array_operand(ctx, self, self.index)
        if isinstance(i, str):
            return i
        if not i.dtype.is_int or i.dtype == I1:
            return f"take index {ctx.show(self.index)} has type {i}, expected integers"
        expected = ArrayType(t.dtype, i.ndim + t.ndim - 1, "C")
        if self.type != expected:
            return f"take result type is {self.type}, expected {expected}"
        return None


@final
@operation
class Compress(Instruction):
    """``array[mask]`` for a boolean ``mask`` of ``array``'s shape: a new 1-D C array of
    the elements where ``mask`` is true, in C order. A mask whose shape differs raises
    NumPy's IndexError (:data:`MASK_ERROR`, the first axis that differs)."""

    OPNAME: ClassVar[str] = "compress"
    OPERANDS: ClassVar[tuple[str, ...]] = ("array", "mask")
    MAY_RAISE: ClassVar[bool] = True
    LOWERED_TO_LOOPS: ClassVar[bool] = True
    array: Value
    mask: Value

    def verify_(self, ctx: VerifyContext) -> str | None:
        """An array, a bool mask of its rank, a 1-D C result of its dtype."""
        t = _masked_array(ctx, self, self.array, self.mask)
        if isinstance(t, str):
            return t
        if self.type != ArrayType(t.dtype, 1, "C"):
            return f"compress result type is {self.type}, expected {ArrayType(t.dtype, 1, 'C')}"
        return None


@final
@operation
class MaskAssign(Instruction):
    """``array[mask] = item`` for a boolean ``mask`` of ``array``'s shape: the elements
    where ``mask`` is true, in C order, get ``item`` (a scalar of the dtype) or the
    elements of the 1-D array ``item`` in turn (one element: each of them). A mask
    whose shape differs raises NumPy's IndexError (:data:`MASK_ERROR`); an ``item`` of
    another length than the true elements' count raises NumPy's ValueError
    (:data:`MASK_ASSIGN_ERROR`), before anything is written. ``item`` must not share
    memory with ``array`` (the front end copies it)."""

    OPNAME: ClassVar[str] = "maskassign"
    OPERANDS: ClassVar[tuple[str, ...]] = ("array", "mask", "item")
    MAY_RAISE: ClassVar[bool] = True
    HAS_SIDE_EFFECTS: ClassVar[bool] = True
    LOWERED_TO_LOOPS: ClassVar[bool] = True
    array: Value
    mask: Value
    item: Value

    def verify_(self, ctx: VerifyContext) -> str | None:
        """An array, a bool mask of its rank, an item of its dtype (a scalar or a 1-D
        array); no result."""
        t = _masked_array(ctx, self, self.array, self.mask)
        if isinstance(t, str):
            return t
        i = self.item.type
        ok = (
            i == t.dtype
            if isinstance(i, ScalarType)
            else (isinstance(i, ArrayType) and i.ndim == 1 and i.dtype == t.dtype)
        )
        if not ok:
            return f"maskassign item {ctx.show(self.item)} has type {i}, expected {t.dtype} values"
        if self.type != NONE:
            return f"maskassign result type is {self.type}, expected none"
        return None


#: NumPy's ValueError of ``x[idx] = v`` when ``v`` does not broadcast to the indexed
#: shape, for a 1-D result (``{0}``: ``v``'s length, ``{1}``: the index's) ...
INDEX_ASSIGN_ERROR = (
    "shape mismatch: value array of shape ({0},) could not be broadcast to indexing result "
    "of shape ({1},)"
)
#: ... and for more axes (NumPy names both shapes, which an error record cannot carry)
INDEX_ASSIGN_AXIS_ERROR = (
    "shape mismatch: value array could not be broadcast to indexing result (size {0} "
    "against {1} at axis {2})"
)


@final
@operation
class IndexAssign(Instruction):
    """``array[index] = item`` for an integer array ``index``: the indexed places (shape
    ``index.shape + array.shape[1:]``, as :class:`Take` reads) get ``item``, a scalar of
    the dtype or an array of the dtype that broadcasts to that shape (each axis, aligned
    at the end, equal or 1), in C order of ``index`` (a repeated index keeps the last
    value). Checks before anything is written, in NumPy's order: ``item``'s shape
    (ValueError, :data:`INDEX_ASSIGN_ERROR`), then every index (counted from the end once
    when negative; IndexError "index 5 is out of bounds for axis 0 with size 3").
    ``item`` must not share memory with ``array`` (materialisation copies it)."""

    OPNAME: ClassVar[str] = "indexassign"
    OPERANDS: ClassVar[tuple[str, ...]] = ("array", "index", "item")
    MAY_RAISE: ClassVar[bool] = True
    HAS_SIDE_EFFECTS: ClassVar[bool] = True
    LOWERED_TO_LOOPS: ClassVar[bool] = True
    array: Value
    index: Value
    item: Value

    def verify_(self, ctx: VerifyContext) -> str | None:
        """An array of 1 or more axes, an integer (not bool) index array, an item of the
        dtype (a scalar, or an array of no more axes than the indexed shape); no result."""
        t = array_operand(ctx, self, self.array)
        if isinstance(t, str):
            return t
        i = array_operand(ctx, self, self.index)
        if isinstance(i, str):
            return i
        if t.ndim < 1 or not i.dtype.is_int or i.dtype == I1:
            return f"indexassign of {t} by {i}: an array and integer indices are required"
        v = self.item.type
        ok = v == t.dtype or (
            isinstance(v, ArrayType) and v.dtype == t.dtype and v.ndim <= i.ndim + t.ndim - 1
        )
        if not ok:
            return f"indexassign item {ctx.show(self.item)} has type {v}, expected {t.dtype} values"
        if self.type != NONE:
            return f"indexassign result type is {self.type}, expected none"
        return None


@final
@operation
class FlatIndex(Instruction):
    """``index`` checked as a flat index into ``size`` elements (``a.flat[i]``): counted
    from the end once when negative; IndexError("index 7 is out of bounds for size 3")
    when still outside ``[0, size)``. The result is the index in ``[0, size)``."""

    OPNAME: ClassVar[str] = "flatindex"
    OPERANDS: ClassVar[tuple[str, ...]] = ("index", "size")
    MAY_RAISE: ClassVar[bool] = True
    index: Value
    size: Value

    def verify_(self, ctx: VerifyContext) -> str | None:
        """Two ``i64`` operands, an ``i64`` result."""
        for v in (self.index, self.size):
            if v.type != I64:
                return f"flatindex operand {ctx.show(v)} has type {v.type}, expected i64"
        if self.type != I64:
            return f"flatindex result type is {self.type}, expected i64"
        return None


@final
@operation
class FlatGet(Instruction):
    """``value.flat[index]`` (the untyped front end's form; inference makes it a
    :class:`FlatIndex`, the index's position in C order, and a load)."""

    OPNAME: ClassVar[str] = "flatget"
    OPERANDS: ClassVar[tuple[str, ...]] = ("value", "index")
    MAY_RAISE: ClassVar[bool] = True
    value: Value
    index: Value

    def verify_(self, ctx: VerifyContext) -> str | None:
        """Never in typed IR."""
        return front_end_only(self)


def _masked_array(
    ctx: VerifyContext, inst: Instruction, array: Value, mask: Value
) -> ArrayType | str:
    """``array``'s type when ``mask`` is a bool array of its rank (compress, maskassign),
    else the verifier's message."""
    t = array_operand(ctx, inst, array)
    if isinstance(t, str):
        return t
    m = array_operand(ctx, inst, mask)
    if isinstance(m, str):
        return m
    if m.dtype != I1 or m.ndim != t.ndim:
        return f"{inst.OPNAME} mask {ctx.show(mask)} has type {m}, expected bools of {t}"
    return t


#: NumPy's IndexError when the index arrays of ``a[rows, cols]`` do not broadcast (it
#: names every index array's shape, each followed by a space).
GATHER_SHAPE_ERROR = "shape mismatch: indexing arrays could not be broadcast together with shapes "


@final
@operation
class Gather(Instruction):
    """``array[i0, i1, ...]``: one integer index per axis, scalars or arrays, at least one
    an array (NumPy's advanced indexing): a new C array of the broadcast shape of the
    index arrays whose element ``[j...]`` is ``array[i0[j...], i1[j...], ...]``. NumPy's
    checks in its order: each scalar index against its axis, then the index arrays'
    shapes (IndexError :data:`GATHER_SHAPE_ERROR`), then every element of each index
    array in turn, a negative index counting from the end once (IndexError "index 5 is
    out of bounds for axis 1 with size 3")."""

    OPNAME: ClassVar[str] = "gather"
    OPERANDS: ClassVar[tuple[str, ...]] = ("array", "indices")
    MAY_RAISE: ClassVar[bool] = True
    LOWERED_TO_LOOPS: ClassVar[bool] = True
    array: Value
    indices: tuple[Value, ...]

    def verify_(self, ctx: VerifyContext) -> str | None:
        """An array, one integer (not bool) index per axis, an array among them, the C
        result of the index arrays' largest rank."""
        t = array_operand(ctx, self, self.array)
        if isinstance(t, str):
            return t
        if len(self.indices) != t.ndim:
            return f"gather has {len(self.indices)} indices for a {t.ndim}-D array"
        ranks = []
        for index in self.indices:
            i = index.type
            dtype = i.dtype if isinstance(i, ArrayType) else i
            if not isinstance(dtype, ScalarType) or not dtype.is_int or dtype == I1:
                return f"gather index {ctx.show(index)} has type {i}, expected integers"
            if isinstance(i, ArrayType):
                ranks.append(i.ndim)
        if not ranks:
            return "gather has no index array"
        expected = ArrayType(t.dtype, max(ranks), "C")
        if self.type != expected:
            return f"gather result type is {self.type}, expected {expected}"
        return None
