"""Reductions of arrays (NumPy's ``np.sum``, ``a.max(axis=...)``, ``np.cumsum``,
``np.linalg.norm``): :class:`Reduce`, :class:`Cumulate` and the front end's
:class:`NumpyReduce`, which inference replaces by one of them.

Semantics are NumPy 2's (``numpy/_core/_methods.py``, ``fromnumeric.py``,
``linalg/_linalg.py``): the reduced axes are listed (sorted, distinct, in range); a
reduction over every axis without ``keepdims`` gives a scalar, any other a new C-contiguous
array of the kept axes (each reduced axis kept with length 1 under ``keepdims``). Each
element is converted to the result dtype before it is accumulated (``np.sum`` of an
``int32`` array accumulates in ``int64``; ``np.mean`` of ints in ``float64``), except for
``min``/``max``/``argmin``/``argmax``/``any``/``all``, which compare the elements as they
are. The order of summation is not NumPy's pairwise one: the lowering (passes/arrays/
reduce.py) says which it is, and how far results may differ.
"""

from __future__ import annotations

from enum import StrEnum
from typing import ClassVar, final

from gradc.compiler.ir.core import Instruction, Value, VerifyContext
from gradc.compiler.ir.opclass import operation
from gradc.compiler.ir.ops.checks import array_operand, front_end_only
from gradc.compiler.ir.types import I1, I64, ArrayType, ScalarType, Type


class ReduceKind(StrEnum):
    """What a :class:`Reduce` computes over the reduced axes (NumPy's function)."""

    SUM = "sum"
    PROD = "prod"
    MEAN = "mean"
    VAR = "var"  # mean of squared deviations from the mean, divided by n - ddof
    STD = "std"  # sqrt(var)
    MIN = "min"  # NaN propagates (np.minimum.reduce)
    MAX = "max"
    MINFROM = "minfrom"  # min with the dtype's greatest value as identity (initial=)
    MAXFROM = "maxfrom"  # max with the dtype's lowest value as identity (initial=)
    ARGMIN = "argmin"  # the first minimum's flat (C-order) index; the first NaN wins
    ARGMAX = "argmax"
    ANY = "any"  # some element is nonzero (NaN is nonzero)
    ALL = "all"
    NORM1 = "norm1"  # sum(abs(x))           (np.linalg.norm(x, 1), vectors)
    NORM2 = "norm2"  # sqrt(sum(x * x))      (ord None / 2 / 'fro')
    NORMINF = "norminf"  # max(abs(x)), 0 when empty (ord np.inf: NumPy's initial=0)
    PYSUM = "pysum"  # Python's sum() of a 1-D array: 0 + a[0] + a[1] ... in order
    PYMIN = "pymin"  # Python's min() of a 1-D array: the first element no later one is < than
    PYMAX = "pymax"


#: Kinds that have no identity: a reduced axis of length 0 raises ValueError.
NO_IDENTITY = frozenset(
    {
        ReduceKind.MIN,
        ReduceKind.MAX,
        ReduceKind.ARGMIN,
        ReduceKind.ARGMAX,
        ReduceKind.PYMIN,
        ReduceKind.PYMAX,
    }
)

#: Python's builtins among the kinds: of 1-D arrays only (they iterate over the first axis).
BUILTINS = frozenset({ReduceKind.PYSUM, ReduceKind.PYMIN, ReduceKind.PYMAX})

#: NumPy's ValueError message when a kind of :data:`NO_IDENTITY` meets a reduced axis of
#: length 0 (``_wrapreduction`` and ``PyArray_ArgMin``'s wording).
EMPTY_MESSAGES: dict[ReduceKind, str] = {
    ReduceKind.MIN: "zero-size array to reduction operation minimum which has no identity",
    ReduceKind.MAX: "zero-size array to reduction operation maximum which has no identity",
    ReduceKind.ARGMIN: "attempt to get argmin of an empty sequence",
    ReduceKind.ARGMAX: "attempt to get argmax of an empty sequence",
    ReduceKind.PYMIN: "min() arg is an empty sequence",  # CPython's builtin
    ReduceKind.PYMAX: "max() arg is an empty sequence",
}


class CumKind(StrEnum):
    """What a :class:`Cumulate` computes (``np.cumsum``, ``np.cumprod``)."""

    CUMSUM = "cumsum"
    CUMPROD = "cumprod"


def reduced_type(t: ArrayType, axes: tuple[int, ...], keepdims: bool, dtype: ScalarType) -> Type:
    """The result type of reducing ``axes`` of an array of type ``t`` to ``dtype``: the
    scalar for a reduction over every axis without ``keepdims``, else the C-contiguous
    array of the remaining (or, with ``keepdims``, all) axes."""
    ndim = t.ndim if keepdims else t.ndim - len(axes)
    return dtype if ndim == 0 else ArrayType(dtype, ndim, "C")


def _check_result_dtype(kind: ReduceKind, source: ScalarType, dtype: ScalarType) -> str | None:
    """Why ``dtype`` cannot be the result dtype of ``kind`` over ``source`` elements."""
    if kind in (ReduceKind.ARGMIN, ReduceKind.ARGMAX):
        ok = dtype == I64
    elif kind in (ReduceKind.ANY, ReduceKind.ALL):
        ok = dtype == I1
    elif kind in (
        ReduceKind.MIN,
        ReduceKind.MAX,
        ReduceKind.MINFROM,
        ReduceKind.MAXFROM,
        ReduceKind.PYMIN,
        ReduceKind.PYMAX,
    ):
        ok = dtype == source
    elif kind == ReduceKind.PYSUM:  # 0 + x: a bool becomes an int (NEP 50: 0 is weak)
        ok = dtype == (I64 if source.is_bool else source)
    elif kind in (ReduceKind.SUM, ReduceKind.PROD):
        ok = dtype.is_float or not source.is_float
    else:  # mean, var, std, norms
        ok = dtype.is_float
    return None if ok else f"{kind} of {source} elements cannot give {dtype}"


@final
@operation
class Reduce(Instruction):
    """``np.<kind>(array, axis=axes, keepdims=keepdims[, ddof=ddof])`` (:class:`ReduceKind`).

    ``axes``: the reduced axes, sorted, distinct, in ``[0, ndim)`` (``()`` reduces
    nothing: each element converted, as NumPy's ``axis=()``). ``ddof``: the delta degrees
    of freedom of ``var``/``std`` (0 for other kinds); a divisor ``n - ddof <= 0`` gives
    inf or NaN as NumPy's (it only warns). The mean of no elements is NaN. A kind of
    :data:`NO_IDENTITY` raises ValueError (:data:`EMPTY_MESSAGES`) when a reduced axis
    has length 0, whatever the other axes' lengths. ``argmin``/``argmax`` over several
    axes (only all of them: ``axis=None``) give the flat C-order index.
    """

    OPNAME: ClassVar[str] = "reduce"
    LOWERED_TO_LOOPS: ClassVar[bool] = True
    OPERANDS: ClassVar[tuple[str, ...]] = ("array",)
    ATTRS: ClassVar[tuple[str, ...]] = ("kind", "axes", "ddof")
    FLAGS: ClassVar[tuple[str, ...]] = ("keepdims",)
    kind: ReduceKind
    array: Value
    axes: tuple[int, ...]
    ddof: int = 0
    keepdims: bool = False

    @property
    def MAY_RAISE(self) -> bool:  # type: ignore[override]  # depends on the kind
        """Only the kinds without an identity raise (on an empty reduced axis)."""
        return self.kind in NO_IDENTITY

    def verify_attrs(self, ctx: VerifyContext) -> str | None:
        """A known kind; ``ddof`` only for ``var``/``std``."""
        if self.kind not in ReduceKind.__members__.values():
            return f"unknown reduction {self.kind!r}"
        if self.ddof != 0 and self.kind not in (ReduceKind.VAR, ReduceKind.STD):
            return f"reduce {self.kind} takes no ddof"
        return None

    def verify_(self, ctx: VerifyContext) -> str | None:
        """An array operand; the axes sorted, distinct and in range (all of them for
        ``argmin``/``argmax`` over more than one); the result type of
        :func:`reduced_type` with a dtype the kind can give."""
        t = array_operand(ctx, self, self.array)
        if isinstance(t, str):
            return t
        axes = self.axes
        if list(axes) != sorted(set(axes)) or any(not 0 <= a < t.ndim for a in axes):
            return f"reduce axes {list(axes)} are not sorted distinct axes of {t}"
        if self.kind in (ReduceKind.ARGMIN, ReduceKind.ARGMAX) and len(axes) not in (
            1,
            t.ndim,
        ):
            return f"reduce {self.kind} over axes {list(axes)} of {t}"
        if self.kind in BUILTINS and (t.ndim, axes, self.keepdims) != (1, (0,), False):
            return f"reduce {self.kind} of {t}: only of a 1-D array, to a scalar"
        result = self.type
        dtype = result.dtype if isinstance(result, ArrayType) else result
        if not isinstance(dtype, ScalarType):
            return f"reduce result type {result} is not a scalar or an array"
        if result != reduced_type(t, axes, self.keepdims, dtype):
            return f"reduce result type {result} does not fit axes {list(axes)} of {t}"
        return _check_result_dtype(self.kind, t.dtype, dtype)


@final
@operation
class Cumulate(Instruction):
    """``np.cumsum``/``np.cumprod(array, axis=axis)`` (:class:`CumKind`): a new
    C-contiguous array of the running sums (products) along ``axis``, each element
    converted to the result dtype first; ``axis`` None runs over the array flattened in
    C order (a 1-D result)."""

    OPNAME: ClassVar[str] = "cumulate"
    LOWERED_TO_LOOPS: ClassVar[bool] = True
    OPERANDS: ClassVar[tuple[str, ...]] = ("array",)
    ATTRS: ClassVar[tuple[str, ...]] = ("kind", "axis")
    kind: CumKind
    array: Value
    axis: int | None

    def verify_attrs(self, ctx: VerifyContext) -> str | None:
        """A known kind."""
        if self.kind not in CumKind.__members__.values():
            return f"unknown cumulative reduction {self.kind!r}"
        return None

    def verify_(self, ctx: VerifyContext) -> str | None:
        """An array operand, ``axis`` in range, the result a C-contiguous array of the
        operand's rank (1 without an axis) whose dtype holds the elements' kind."""
        t = array_operand(ctx, self, self.array)
        if isinstance(t, str):
            return t
        if self.axis is not None and not 0 <= self.axis < t.ndim:
            return f"cumulate axis {self.axis} out of range for {t}"
        result = self.type
        ndim = 1 if self.axis is None else t.ndim
        if not isinstance(result, ArrayType) or (result.ndim, result.layout) != (ndim, "C"):
            return f"cumulate result type {result} is not a C-contiguous {ndim}-D array"
        if t.dtype.is_float and not result.dtype.is_float:
            return f"{self.kind} of {t.dtype} elements cannot give {result.dtype}"
        return None


@final
@operation
class NumpyReduce(Instruction):
    """A reduction as written (``np.sum(a, axis=-1)``, ``a.argmax()``, ``np.cumsum(a)``,
    ``np.linalg.norm(x, np.inf)``): ``fn`` names a :class:`ReduceKind` or a
    :class:`CumKind`; ``axes`` as written (negative axes count from the end; None: every
    axis, or for a cumulative one the flattened array); ``dtype`` the requested result
    dtype's IR name or ``""``; ``shown`` the call as the user wrote it, for messages
    (``np.sum()``). Inference types it and replaces it by a :class:`Reduce` or
    :class:`Cumulate` (compiler/infer/reductions.py)."""

    OPNAME: ClassVar[str] = "npreduce"
    OPERANDS: ClassVar[tuple[str, ...]] = ("array",)
    ATTRS: ClassVar[tuple[str, ...]] = ("fn", "axes", "ddof", "dtype", "shown")
    FLAGS: ClassVar[tuple[str, ...]] = ("keepdims",)
    fn: str
    array: Value
    axes: tuple[int, ...] | None
    ddof: int = 0
    dtype: str = ""
    shown: str = ""
    keepdims: bool = False

    def verify_(self, ctx: VerifyContext) -> str | None:
        """Never in typed IR."""
        return front_end_only(self)
