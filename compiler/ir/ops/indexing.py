"""Indexing that copies (NumPy's advanced indexing, reads only) and ``a.flat[i]``.

``take`` (``x[idx]`` with an integer array ``idx``) and ``compress`` (``x[mask]`` with a
boolean array ``mask``) make new C-contiguous arrays; the ``lower-arrays`` pass replaces
them by loops (passes/arrays/indexing.py). ``flatindex`` checks a flat index for
``a.flat[i]``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, final

from gradc.compiler.ir.core import Instruction, Value, VerifyContext
from gradc.compiler.ir.ops.checks import array_operand, front_end_only
from gradc.compiler.ir.types import I1, I64, ArrayType

#: NumPy's messages (``{0}``, ``{1}``... the run-time numbers).
FLAT_INDEX_ERROR = "index {0} is out of bounds for size {1}"
MASK_ERROR = (
    "boolean index did not match indexed array along axis {0}; size of axis is {1} but size "
    "of corresponding boolean axis is {2}"
)


@final
@dataclass(eq=False, slots=True)
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
@dataclass(eq=False, slots=True)
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
        t = array_operand(ctx, self, self.array)
        if isinstance(t, str):
            return t
        m = array_operand(ctx, self, self.mask)
        if isinstance(m, str):
            return m
        if m.dtype != I1 or m.ndim != t.ndim:
            return f"compress mask {ctx.show(self.mask)} has type {m}, expected bools of {t}"
        if self.type != ArrayType(t.dtype, 1, "C"):
            return f"compress result type is {self.type}, expected {ArrayType(t.dtype, 1, 'C')}"
        return None


@final
@dataclass(eq=False, slots=True)
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
@dataclass(eq=False, slots=True)
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
