"""Views: new array descriptors over the memory of another array (NumPy's basic indexing,
transposes and contiguous reshapes).

A view shares its base's data and its reference-counted block (docs/abi.md "Arrays"): its
descriptor has the base's ``meminfo`` and takes a reference of its own when it is made
(the code generator increfs the block after the view's checks pass), so the ``lifetimes``
pass treats a view as any other owned array, and the base's block lives while a view of it
does. Writes through a view are writes to the base (the pointer analyses,
``passes/analysis/pointers.py``, see a view as another name of its base's memory).

Printed forms::

    %v = view %a, (%i, %lo), [int, s100, new] : array[f64,2,C]    (a[i, lo:, None])
    %t = transpose %a, [1, 0] : array[f64,2,F]
    %r = reshape %a, (%m, %n), "cannot reshape array of size {0} into shape ({1},{2})" : array[f64,2,C]

Result layouts (the type says which axis has unit stride, :mod:`gradc.compiler.ir.types`)
are computed by :func:`view_type` and :func:`transpose_type`; a result is ``C`` or ``F``
only where NumPy's contiguity flag provably holds, and never ``C`` from an ``F`` base (a
Fortran array's derivative is typed ``A``: passes/ad/layout.py; the derivative of a view
is the same view of the derivative, which must type the same).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar, final

from gradc.compiler.ir.core import Instruction, Text, Value, VerifyContext
from gradc.compiler.ir.opclass import operation
from gradc.compiler.ir.ops.checks import array_operand, front_end_only
from gradc.compiler.ir.types import I64, ArrayType

#: Index items of :class:`SliceView`: an integer (removes its axis; one operand), a new
#: axis of length 1 (``None``/``np.newaxis``; no operand), or a slice ``sXYZ`` whose three
#: digits say whether start, stop and step are given (one operand each, in that order;
#: ``s000`` is ``:``).
INT_ITEM = "int"
NEW_ITEM = "new"
SLICE_ITEMS = tuple(f"s{a}{b}{c}" for a in "01" for b in "01" for c in "01")
FULL_SLICE = "s000"
#: The one item of a :class:`BasicIndex` that is ``np.flip(a)``: every axis reversed.
FLIP_ALL = "flip"


def item_operands(item: str) -> int:
    """How many ``i64`` operands index item ``item`` takes."""
    if item == INT_ITEM:
        return 1
    if item == NEW_ITEM:
        return 0
    return item.count("1")


def _contiguous(items: Sequence[str]) -> bool:
    """Do these items (new axes left out), applied from the contiguous end's far side,
    keep NumPy's contiguity: integers, then at most one unit-step slice, then only
    full slices."""
    k = 0
    while k < len(items) and items[k] == INT_ITEM:
        k += 1
    if k == len(items):
        return True
    if items[k][-1] != "0":  # a step given (even 1 at run time: not known here)
        return False
    return all(x == FULL_SLICE for x in items[k + 1 :])


def view_type(base: ArrayType, items: Sequence[str]) -> ArrayType | None:
    """The type of ``base[items]`` (each axis of ``base`` has exactly one item that is not
    a new axis), or None when that is not a view (no axis left, or items that do not fit).

    ``C`` from a ``C`` base when the indexed axes keep row-major contiguity (``a[i]``,
    ``a[2:5]``, ``a[i, :, None]``); ``F`` from an ``F`` base likewise mirrored, for results
    of rank >= 2; otherwise ``A``.
    """
    if any(x not in SLICE_ITEMS and x not in (INT_ITEM, NEW_ITEM) for x in items):
        return None
    axes = [x for x in items if x != NEW_ITEM]
    if len(axes) != base.ndim:
        return None
    ndim = sum(1 for x in items if x != INT_ITEM)
    if ndim == 0:
        return None
    layout = "A"
    if base.layout == "C" and _contiguous(axes):
        layout = "C"
    elif base.layout == "F" and ndim >= 2 and _contiguous(axes[::-1]):
        layout = "F"
    return ArrayType(base.dtype, ndim, layout)


def transpose_type(base: ArrayType, perm: Sequence[int]) -> ArrayType | None:
    """The type of ``base.transpose(perm)``, or None when ``perm`` is not a permutation of
    the axes. The identity keeps the layout; reversing a ``C`` array's axes makes it ``F``;
    everything else is ``A`` (an ``F`` base's reversal too: see the module docstring)."""
    if sorted(perm) != list(range(base.ndim)):
        return None
    if list(perm) == list(range(base.ndim)):
        return base
    if base.layout == "C" and list(perm) == list(range(base.ndim))[::-1]:
        return ArrayType(base.dtype, base.ndim, "F")
    return ArrayType(base.dtype, base.ndim, "A")


@final
@operation
class SliceView(Instruction):
    """``array[items]`` by NumPy's basic indexing: a view sharing ``array``'s memory.

    ``items`` has one entry per axis of ``array`` (an ellipsis and missing trailing axes
    are expanded to ``s000`` by the front end) plus the new axes; ``args`` holds their
    ``i64`` operands in order (:func:`item_operands`). An integer counts from the end
    once when negative and raises IndexError("index 5 is out of bounds for axis 0 with
    size 3") when still outside the axis; a slice follows CPython's
    ``PySlice_AdjustIndices`` (start and stop clamped, negative steps counting down) and
    raises ValueError("slice step cannot be zero"); a new axis has length 1 and stride 0.
    The result's ``meminfo`` is the base's, with one more reference.
    """

    OPNAME: ClassVar[str] = "view"
    OPERANDS: ClassVar[tuple[str, ...]] = ("array", "args")
    ATTRS: ClassVar[tuple[str, ...]] = ("items",)
    MAY_RAISE: ClassVar[bool] = True
    array: Value
    args: tuple[Value, ...]
    items: tuple[str, ...]

    def verify_(self, ctx: VerifyContext) -> str | None:
        """An array, items that fit its rank, one ``i64`` per item operand, and the
        result type :func:`view_type` gives."""
        t = array_operand(ctx, self, self.array)
        if isinstance(t, str):
            return t
        expected = view_type(t, self.items)
        if expected is None:
            return f"view items {list(self.items)} do not index {t} to an array"
        if sum(item_operands(x) for x in self.items) != len(self.args):
            return f"view has {len(self.args)} operand(s) for items {list(self.items)}"
        for a in self.args:
            if a.type != I64:
                return f"view operand {ctx.show(a)} has type {a.type}, expected i64"
        if self.type != expected:
            return f"view result type is {self.type}, expected {expected}"
        return None


@final
@operation
class Transpose(Instruction):
    """``array.transpose(perm)`` (``a.T``: the axes reversed): a view whose axis ``k`` is
    ``array``'s axis ``perm[k]``. Never raises (``perm`` is checked at compile time)."""

    OPNAME: ClassVar[str] = "transpose"
    OPERANDS: ClassVar[tuple[str, ...]] = ("array",)
    ATTRS: ClassVar[tuple[str, ...]] = ("perm",)
    array: Value
    perm: tuple[int, ...]

    def verify_(self, ctx: VerifyContext) -> str | None:
        """A permutation of the operand's axes; the result type :func:`transpose_type`."""
        t = array_operand(ctx, self, self.array)
        if isinstance(t, str):
            return t
        expected = transpose_type(t, self.perm)
        if expected is None:
            return f"transpose axes {list(self.perm)} are not a permutation for {t}"
        if self.type != expected:
            return f"transpose result type is {self.type}, expected {expected}"
        return None


@final
@operation
class Reshape(Instruction):
    """``array.reshape(shape)`` as a view: of a C-contiguous array, a C-contiguous view of
    the same elements in row-major order with the dimensions ``shape`` (one ``i64``
    each); of a 1-D array of any strides (NumPy never copies to reshape one), a view whose
    last axis has the array's stride (layout ``A``).

    A negative dimension is the unknown one, computed from the size; NumPy's ValueErrors:
    "can only specify one unknown dimension", and "cannot reshape array of size 6 into
    shape (4,newaxis)" (an unknown dimension printed ``newaxis``, as NumPy 2 prints it)
    when the sizes disagree. ``message`` is that message's template for this instruction
    (``{0}``: the size; ``{1}``, ``{2}``: the dimensions not known at compile time, or a
    message without them when more than two are not). ``ravel`` (``a.ravel()``, printed
    ``{ravel}``): NumPy copies a non-contiguous array there, so the operand must be C.
    """

    OPNAME: ClassVar[str] = "reshape"
    OPERANDS: ClassVar[tuple[str, ...]] = ("array", "shape")
    ATTRS: ClassVar[tuple[str, ...]] = ("message",)
    FLAGS: ClassVar[tuple[str, ...]] = ("ravel",)
    MAY_RAISE: ClassVar[bool] = True
    array: Value
    shape: tuple[Value, ...]
    message: Text
    ravel: bool = False

    def verify_(self, ctx: VerifyContext) -> str | None:
        """A C-contiguous (or, but for ``ravel``, 1-D) array operand, ``i64`` dimensions,
        the result :func:`reshape_type` gives."""
        t = array_operand(ctx, self, self.array)
        if isinstance(t, str):
            return t
        for d in self.shape:
            if d.type != I64:
                return f"reshape dimension {ctx.show(d)} has type {d.type}, expected i64"
        expected = reshape_type(t, len(self.shape), ravel=self.ravel)
        if expected is None:
            return f"reshape operand {ctx.show(self.array)} has type {t}, expected a C array"
        if self.type != expected:
            return f"reshape result type is {self.type}, expected {expected}"
        return None


def reshape_type(base: ArrayType, ndim: int, *, ravel: bool = False) -> ArrayType | None:
    """The type of ``base.reshape`` to ``ndim`` axes as a view (C from a C base, else ``A``
    from a 1-D base), or None when NumPy might copy (another base; ``ravel`` of a non-C
    base) or ``ndim`` is 0."""
    if ndim < 1:
        return None
    if base.layout == "C":
        return ArrayType(base.dtype, ndim, "C")
    if base.ndim == 1 and not ravel:
        return ArrayType(base.dtype, ndim, "A")
    return None


@final
@operation
class BasicIndex(Instruction):
    """``value[items]`` with a slice, ``None`` or ``...`` among the indices (the untyped
    front end's form; inference makes it a :class:`SliceView`, expanding ``"..."`` and the
    missing trailing axes once the rank is known). ``items`` as :class:`SliceView`'s, plus
    ``"..."``; or the one item :data:`FLIP_ALL` (``np.flip(a)``: a step of -1 on every
    axis, no operands); ``args`` their operands (ints of any width)."""

    OPNAME: ClassVar[str] = "basicindex"
    OPERANDS: ClassVar[tuple[str, ...]] = ("value", "args")
    ATTRS: ClassVar[tuple[str, ...]] = ("items",)
    MAY_RAISE: ClassVar[bool] = True
    value: Value
    args: tuple[Value, ...]
    items: tuple[str, ...]

    def verify_(self, ctx: VerifyContext) -> str | None:
        """Never in typed IR."""
        return front_end_only(self)


@final
@operation
class AssignInto(Instruction):
    """``out[...] = value`` (``np.copyto(out, value)``): slice assignment, after the
    target view was made. ``value`` is a scalar of ``out``'s dtype, or an array that
    broadcasts to ``out``'s shape (else NumPy's ValueError "could not broadcast input
    array from shape (4,) into shape (3,)") whose elements are converted to ``out``'s
    dtype ('same_kind', checked by inference). A ``value`` sharing memory with ``out``
    is read as if copied first (NumPy copies overlapping operands): ``a[1:] = a[:-1]``.
    The ``lower-arrays`` pass replaces it by loops (passes/arrays/views.py).
    """

    OPNAME: ClassVar[str] = "assign_into"
    OPERANDS: ClassVar[tuple[str, ...]] = ("out", "value")
    MAY_RAISE: ClassVar[bool] = True
    HAS_SIDE_EFFECTS: ClassVar[bool] = True
    LOWERED_TO_LOOPS: ClassVar[bool] = True
    out: Value
    value: Value

    def verify_(self, ctx: VerifyContext) -> str | None:
        """An array ``out``; a scalar ``value`` of its dtype, or an array of no more
        axes; no result."""
        out = array_operand(ctx, self, self.out)
        if isinstance(out, str):
            return out
        t = self.value.type
        if isinstance(t, ArrayType):
            if t.ndim > out.ndim:
                return f"assign_into of {t} into {out}: the value has more axes"
        elif t != out.dtype:
            return f"assign_into of {ctx.show(self.value)}: {t} into {out}"
        return None
