"""Front-end operations: polymorphic over tuples and arrays, so the untyped front end can
emit them; inference replaces each by typed operations (they never occur in typed IR)."""

from __future__ import annotations

from enum import StrEnum
from typing import ClassVar, final

from gradc.compiler.ir.core import Instruction, Value, VerifyContext
from gradc.compiler.ir.opclass import operation
from gradc.compiler.ir.ops.checks import front_end_only


class ArrayProperty(StrEnum):
    """The array attributes :class:`ArrayAttr` reads."""

    SHAPE = "shape"
    SIZE = "size"
    NDIM = "ndim"


class AllocKind(StrEnum):
    """The NumPy allocation an :class:`Allocate` stands for (``np.zeros``, ``np.zeros_like``:
    ``zeros``)."""

    ZEROS = "zeros"
    ONES = "ones"
    EMPTY = "empty"
    FULL = "full"


@final
@operation
class GetItem(Instruction):
    """``value[indices]``: a tuple element (constant index) or an array element.

    ``in_range``: the front end knows the index is in ``[0, len(value))`` (the counter of
    a ``for`` loop over ``value``), so a tuple whose elements are scalars of one type may
    be indexed by it at run time."""

    OPNAME: ClassVar[str] = "getitem"
    OPERANDS: ClassVar[tuple[str, ...]] = ("value", "indices")
    FLAGS: ClassVar[tuple[str, ...]] = ("in_range",)
    MAY_RAISE: ClassVar[bool] = True
    value: Value
    indices: tuple[Value, ...]
    in_range: bool = False

    def verify_(self, ctx: VerifyContext) -> str | None:
        """Never in typed IR."""
        return front_end_only(self)


@final
@operation
class SetItem(Instruction):
    """``value[indices] = item`` on an array."""

    OPNAME: ClassVar[str] = "setitem"
    OPERANDS: ClassVar[tuple[str, ...]] = ("value", "indices", "item")
    MAY_RAISE: ClassVar[bool] = True
    HAS_SIDE_EFFECTS: ClassVar[bool] = True
    value: Value
    indices: tuple[Value, ...]
    item: Value

    def verify_(self, ctx: VerifyContext) -> str | None:
        """Never in typed IR."""
        return front_end_only(self)


@final
@operation
class Len(Instruction):
    """``len(value)``: the first axis of an array, or a tuple's length."""

    OPNAME: ClassVar[str] = "len"
    OPERANDS: ClassVar[tuple[str, ...]] = ("value",)
    value: Value

    def verify_(self, ctx: VerifyContext) -> str | None:
        """Never in typed IR."""
        return front_end_only(self)


@final
@operation
class ArrayAttr(Instruction):
    """``value.shape``, ``value.size`` or ``value.ndim`` of an array (``attr``)."""

    OPNAME: ClassVar[str] = "arrayattr"
    OPERANDS: ClassVar[tuple[str, ...]] = ("value",)
    ATTRS: ClassVar[tuple[str, ...]] = ("attr",)
    attr: ArrayProperty
    value: Value

    def verify_(self, ctx: VerifyContext) -> str | None:
        """Never in typed IR."""
        return front_end_only(self)


@final
@operation
class Allocate(Instruction):
    """``np.zeros/ones/empty/full(shape[, fill], dtype=...)`` and the ``*_like`` forms.

    ``kind`` is ``zeros``, ``ones``, ``empty`` or ``full``; ``shape`` is an int or a tuple
    of ints (None with ``like``); ``like`` is the array a ``*_like`` call copies shape
    (and, without ``dtype``, dtype) from; ``dtype`` is the element type's IR name or
    ``""`` for NumPy's default (``f64``, or the fill value's type for ``np.full``);
    ``fill`` is the value of ``full`` (None otherwise).
    """

    OPNAME: ClassVar[str] = "allocate"
    OPERANDS: ClassVar[tuple[str, ...]] = ("shape", "like", "fill")
    ATTRS: ClassVar[tuple[str, ...]] = ("kind", "dtype")
    MAY_RAISE: ClassVar[bool] = True
    kind: AllocKind
    dtype: str
    shape: Value | None
    like: Value | None
    fill: Value | None

    def verify_(self, ctx: VerifyContext) -> str | None:
        """Never in typed IR."""
        return front_end_only(self)


@final
@operation
class NumpyCall(Instruction):
    """``np.<fn>(*args)`` on scalars (``np.sqrt(x)``, ``np.minimum(a, b)``): its result
    type and its typed operations depend on the operands' types, as NumPy's ufunc loops
    do (compiler/ir/numpy_math.py holds the functions)."""

    OPNAME: ClassVar[str] = "numpy"
    OPERANDS: ClassVar[tuple[str, ...]] = ("args",)
    ATTRS: ClassVar[tuple[str, ...]] = ("fn",)
    fn: str
    args: tuple[Value, ...]

    def verify_(self, ctx: VerifyContext) -> str | None:
        """Never in typed IR."""
        return front_end_only(self)
