"""Array construction and conversion: ``np.arange`` (:class:`Arange`), ``np.linspace``
(:class:`Linspace`), ``np.eye``/``np.identity`` (:class:`Eye`), ``np.array`` of a literal
(:class:`ArrayLiteral`), ``np.concatenate``/``np.stack``/``np.vstack``/``np.hstack``
(:class:`Concatenate`) and ``a.astype(dtype)`` (:class:`AsType`).

Whole-array operations like those of :mod:`.linalg`: each result is a new C-contiguous
array owned by compiled code; the ``lower-arrays`` pass (passes/arrays/construct.py)
replaces each by loops before AD.
"""

from __future__ import annotations

from enum import StrEnum
from typing import ClassVar, final

from gradc.compiler.ir.core import Instruction, Value, VerifyContext
from gradc.compiler.ir.opclass import operation
from gradc.compiler.ir.ops.checks import array_operand
from gradc.compiler.ir.types import F64, I64, ArrayType, Type, join


def _c_array(inst: Instruction, ndim: int) -> ArrayType | str:
    """The result type of ``inst`` if it is a C-contiguous array of rank ``ndim`` (and of
    the dtype its ``dtype`` attribute names, where it has one), else the reason."""
    t = inst.type
    if not isinstance(t, ArrayType) or t.layout != "C" or t.ndim != ndim:
        return f"{inst.OPNAME} result type {t} is not a C-contiguous {ndim}-D array"
    dtype = getattr(inst, "dtype", t.dtype.name)
    if dtype != t.dtype.name:
        return f"{inst.OPNAME} dtype {dtype!r} differs from its result type {t}"
    return t


def _scalars_of(ctx: VerifyContext, inst: Instruction, values: list[Value], t: Type) -> str | None:
    for v in values:
        if v.type != t:
            return f"{inst.OPNAME} operand {ctx.show(v)} has type {v.type}, expected {t}"
    return None


@final
@operation
class Arange(Instruction):
    """``np.arange(start, stop, step)``: ``ceil((stop - start) / step)`` elements (none
    when that is not positive) ``start + i*delta``, as NumPy fills them (``delta`` is
    ``(start + step) - start`` in the dtype). The operands have the result's dtype
    (ints: exact integer arithmetic). ``step == 0`` raises ZeroDivisionError
    ("division by zero"), as NumPy does."""

    OPNAME: ClassVar[str] = "arange"
    LOWERED_TO_LOOPS: ClassVar[bool] = True
    OPERANDS: ClassVar[tuple[str, ...]] = ("start", "stop", "step")
    ATTRS: ClassVar[tuple[str, ...]] = ("dtype",)
    MAY_RAISE: ClassVar[bool] = True
    dtype: str
    start: Value
    stop: Value
    step: Value

    def verify_(self, ctx: VerifyContext) -> str | None:
        """A 1-D C array of an int or float dtype; operands of that dtype."""
        t = _c_array(self, 1)
        if isinstance(t, str):
            return t
        if t.dtype.is_bool:
            return "arange of bools is not supported"
        return _scalars_of(ctx, self, [self.start, self.stop, self.step], t.dtype)


@final
@operation
class Linspace(Instruction):
    """``np.linspace(start, stop, num, endpoint=not no_endpoint)`` (f64 operands, ``num``
    an i64): NumPy's values (``start + i*step``, ``step = (stop - start)/div``, ``div =
    num - 1`` with the endpoint, else ``num``; with it the last element is ``stop``),
    converted to the result dtype (a float). A negative ``num`` raises ValueError
    ("Number of samples, -1, must be non-negative.")."""

    OPNAME: ClassVar[str] = "linspace"
    LOWERED_TO_LOOPS: ClassVar[bool] = True
    OPERANDS: ClassVar[tuple[str, ...]] = ("start", "stop", "num")
    FLAGS: ClassVar[tuple[str, ...]] = ("no_endpoint",)
    ATTRS: ClassVar[tuple[str, ...]] = ("dtype",)
    MAY_RAISE: ClassVar[bool] = True
    dtype: str
    start: Value
    stop: Value
    num: Value
    no_endpoint: bool = False

    def verify_(self, ctx: VerifyContext) -> str | None:
        """A 1-D C array of a float dtype; f64 start and stop, an i64 count."""
        t = _c_array(self, 1)
        if isinstance(t, str):
            return t
        if not t.dtype.is_float:
            return f"linspace result dtype {t.dtype} is not a float"
        if self.num.type != I64:
            return f"linspace count {ctx.show(self.num)} has type {self.num.type}, expected i64"
        return _scalars_of(ctx, self, [self.start, self.stop], F64)


@final
@operation
class Eye(Instruction):
    """``np.eye(rows, cols, k=diagonal)`` (and ``np.identity(n)``): a 2-D array with ones
    on diagonal ``k`` (``j - i == k``) and zeros elsewhere. Negative sizes raise
    ValueError("negative dimensions are not allowed")."""

    OPNAME: ClassVar[str] = "eye"
    LOWERED_TO_LOOPS: ClassVar[bool] = True
    OPERANDS: ClassVar[tuple[str, ...]] = ("rows", "cols", "diagonal")
    ATTRS: ClassVar[tuple[str, ...]] = ("dtype",)
    MAY_RAISE: ClassVar[bool] = True
    dtype: str
    rows: Value
    cols: Value
    diagonal: Value

    def verify_(self, ctx: VerifyContext) -> str | None:
        """A 2-D C array; ``i64`` operands."""
        t = _c_array(self, 2)
        if isinstance(t, str):
            return t
        return _scalars_of(ctx, self, [self.rows, self.cols, self.diagonal], I64)


@final
@operation
class ArrayLiteral(Instruction):
    """``np.array([[a, b], [c, d]])``: a new array of the static ``shape`` holding
    ``elements`` in C order (each already of the dtype)."""

    OPNAME: ClassVar[str] = "arraylit"
    LOWERED_TO_LOOPS: ClassVar[bool] = True
    OPERANDS: ClassVar[tuple[str, ...]] = ("elements",)
    ATTRS: ClassVar[tuple[str, ...]] = ("dtype", "shape")
    MAY_RAISE: ClassVar[bool] = True
    dtype: str
    shape: tuple[int, ...]
    elements: tuple[Value, ...]

    def verify_attrs(self, ctx: VerifyContext) -> str | None:
        """``shape`` is a tuple of non-negative ints."""
        if not isinstance(self.shape, tuple) or not all(
            isinstance(d, int) and d >= 0 for d in self.shape
        ):
            return f"arraylit shape {self.shape!r} is not a tuple of non-negative ints"
        return None

    def verify_(self, ctx: VerifyContext) -> str | None:
        """A C array of rank ``len(shape)`` with one element of its dtype per entry."""
        t = _c_array(self, len(self.shape))
        if isinstance(t, str):
            return t
        size = 1
        for d in self.shape:
            size *= d
        if len(self.elements) != size:
            return f"arraylit of shape {self.shape} has {len(self.elements)} element(s)"
        return _scalars_of(ctx, self, list(self.elements), t.dtype)


#: NumPy's message for arrays that differ off the concatenation axis.
CONCAT_MISMATCH = (
    "all the input array dimensions except for the concatenation axis must match exactly, "
    "but along dimension {0}, the array at index 0 has size {1} and the array at index {2} "
    "has size {3}"
)


class JoinKind(StrEnum):
    """How a :class:`Concatenate` joins its arrays. ``vstack`` and ``hstack`` exist only
    before inference, which rewrites them as NumPy defines them (``hstack``: along axis 0
    of 1-D arrays, else axis 1; ``vstack`` of N-D arrays: along axis 0); in typed IR
    ``vstack`` is that of 1-D arrays, each a row of the result."""

    CONCATENATE = "concatenate"  # along an existing axis
    STACK = "stack"  # along a new axis, every shape equal
    VSTACK = "vstack"  # 1-D arrays as the rows of a 2-D result (atleast_2d, concatenate)
    HSTACK = "hstack"  # before inference only


@final
@operation
class Concatenate(Instruction):
    """``np.concatenate(arrays, axis)``, ``np.stack(arrays, axis)``, ``np.vstack`` and
    ``np.hstack`` (:class:`JoinKind`): a new C array of the promoted dtype. NumPy's
    ValueErrors for shapes that do not fit ("all the input array dimensions except for
    the concatenation axis must match exactly, but along dimension 1, the array at index
    0 has size 3 and the array at index 1 has size 2"; ``stack``: "all input arrays must
    have the same shape")."""

    OPNAME: ClassVar[str] = "concat"
    LOWERED_TO_LOOPS: ClassVar[bool] = True
    OPERANDS: ClassVar[tuple[str, ...]] = ("arrays",)
    ATTRS: ClassVar[tuple[str, ...]] = ("kind", "axis")
    MAY_RAISE: ClassVar[bool] = True
    kind: JoinKind
    axis: int
    arrays: tuple[Value, ...]

    def verify_attrs(self, ctx: VerifyContext) -> str | None:
        """The kind is a typed :class:`JoinKind` (not ``hstack``)."""
        if self.kind not in ("concatenate", "stack", "vstack"):
            return f"concat kind {self.kind!r} is not concatenate, stack or vstack"
        return None

    def verify_(self, ctx: VerifyContext) -> str | None:
        """At least one array, all of one rank (1 for ``vstack``, whose ``axis`` is 0);
        ``axis`` in range; the result's rank is theirs (plus one for ``stack`` and
        ``vstack``) and its dtype their promotion."""
        if not self.arrays:
            return "concat of no arrays"
        types = []
        for a in self.arrays:
            t = array_operand(ctx, self, a)
            if isinstance(t, str):
                return t
            types.append(t)
        if len({t.ndim for t in types}) != 1:
            return "concat operands differ in rank"
        if self.kind == "vstack" and (types[0].ndim != 1 or self.axis != 0):
            return "concat vstack joins 1-D arrays along axis 0"
        ndim = types[0].ndim + int(self.kind != "concatenate")
        result = _c_array(self, ndim)
        if isinstance(result, str):
            return result
        if not 0 <= self.axis < ndim:
            return f"concat axis {self.axis} out of range for rank {ndim}"
        dtype: Type = types[0].dtype
        for t in types[1:]:
            dtype = join(dtype, t.dtype) or dtype
        if result.dtype != dtype:
            return f"concat result dtype is {result.dtype}, expected {dtype}"
        return None


@final
@operation
class AsType(Instruction):
    """``array.astype(dtype)``: a new C-contiguous array of the result's dtype, each
    element converted as :class:`~.scalar.Cast` converts a scalar (float to int
    truncates toward zero; a NaN or out-of-range float raises, where NumPy gives an
    unspecified integer: docs/arrays_linalg.md)."""

    OPNAME: ClassVar[str] = "astype"
    LOWERED_TO_LOOPS: ClassVar[bool] = True
    OPERANDS: ClassVar[tuple[str, ...]] = ("array",)
    ATTRS: ClassVar[tuple[str, ...]] = ("dtype",)
    MAY_RAISE: ClassVar[bool] = True
    dtype: str
    array: Value

    def verify_(self, ctx: VerifyContext) -> str | None:
        """An array; the result a C array of the same rank."""
        t = array_operand(ctx, self, self.array)
        if isinstance(t, str):
            return t
        result = _c_array(self, t.ndim)
        return result if isinstance(result, str) else None
