"""Inference of NumPy's reductions: the type of a :class:`~ops.NumpyReduce` and its
replacement by a typed :class:`~ops.Reduce` or :class:`~ops.Cumulate`.

Result dtypes are NumPy 2's on Linux (``np.sum`` of ``bool``/``int8``/``int32``/``int64``
elements is ``int64``, of ``float32`` ``float32``; ``np.mean``/``var``/``std`` of ints
``float64``; ``min``/``max`` the elements' dtype; ``argmin``/``argmax`` ``int64``;
``any``/``all`` ``bool``; ``np.linalg.norm`` of ints ``float64`` (NumPy converts them
with ``astype(float)``), of ``float32`` ``float32``). A requested ``dtype=`` is the result
dtype; one NumPy reaches only by an unsafe cast (floats summed as ints) or that changes
the operation (``dtype=bool``) is a compile error. Axes are checked and normalised here,
at compile time, with NumPy's messages (``axis 2 is out of bounds for array of dimension
2``, ``duplicate value in 'axis'``): ranks are static.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gradc._dataclass import dataclass
from gradc.compiler.infer.materialize import Materializer, _front_end
from gradc.compiler.infer.rules import TRANSFER
from gradc.compiler.ir import ops
from gradc.compiler.ir.core import Instruction, Value
from gradc.compiler.ir.ops.reductions import BUILTINS, reduced_type
from gradc.compiler.ir.types import (
    F64,
    I1,
    I8,
    I64,
    SCALARS,
    ArrayType,
    ScalarType,
    Type,
    UnknownType,
    python_name,
)

if TYPE_CHECKING:
    from gradc.compiler.infer.specialize import Inference, Spec

_NORMS = {
    "norm:None": ops.ReduceKind.NORM2,
    "norm:fro": ops.ReduceKind.NORM2,
    "norm:2": ops.ReduceKind.NORM2,
    "norm:1": ops.ReduceKind.NORM1,
    "norm:inf": ops.ReduceKind.NORMINF,
}
_CUMULATIVE = frozenset(k.value for k in ops.CumKind)
_BUILTINS = frozenset(k.value for k in BUILTINS)
_FLOAT_RESULT = frozenset(
    {
        ops.ReduceKind.MEAN,
        ops.ReduceKind.VAR,
        ops.ReduceKind.STD,
        ops.ReduceKind.NORM1,
        ops.ReduceKind.NORM2,
        ops.ReduceKind.NORMINF,
    }
)


@dataclass(frozen=True)
class Resolved:
    """What a :class:`~ops.NumpyReduce` of a known array type stands for.

    Attributes:
        kind: the :class:`~ops.ReduceKind` or :class:`~ops.CumKind`.
        axes: the reduced axes, normalised (a :class:`~ops.Reduce`), or the axis of a
            :class:`~ops.Cumulate` (None: flattened).
        type: the result type.
    """

    kind: ops.ReduceKind | ops.CumKind
    axes: tuple[int, ...] | int | None
    type: Type


def resolve(inst: ops.NumpyReduce, t: ArrayType) -> Resolved | str:
    """The reduction ``inst`` makes of an array of type ``t``, or the compile error's
    message."""
    shown = inst.shown
    if inst.fn in _NORMS and inst.axes is not None:
        problem = _norm_axes(inst, t)
        if problem is not None:
            return problem
    elif inst.fn in _NORMS:
        if inst.fn == "norm:fro" and t.ndim != 2:
            return f"{shown} with ord='fro' needs a 2-D array, got {python_name(t)}"
        if (
            inst.fn in ("norm:1", "norm:2", "norm:inf")
            and t.ndim != 1
            and not _matrix_norm(inst, t)
        ):
            return (
                f"{shown} of a {t.ndim}-D array with ord={inst.fn[5:]} (a matrix norm) is "
                "not supported; only vector norms, the Frobenius norm and ord 1 or inf of a "
                "matrix"
            )
    if inst.fn in _BUILTINS and t.ndim != 1:
        return (
            f"{shown} of a {t.ndim}-D array is not supported (it iterates over the rows: "
            "use np.min/np.max/np.sum)"
        )
    axes = _normalized(inst.axes, t.ndim)
    if isinstance(axes, str):
        return axes
    if inst.fn in _CUMULATIVE:
        cum = ops.CumKind(inst.fn)
        dtype = _accumulator(shown, t.dtype, inst.dtype)
        if isinstance(dtype, str):
            return dtype
        axis = None if inst.axes is None else axes[0]
        return Resolved(cum, axis, ArrayType(dtype, 1 if axis is None else t.ndim, "C"))
    kind = _NORMS.get(inst.fn) or ops.ReduceKind(inst.fn)
    dtype = _result_dtype(shown, kind, t.dtype, inst.dtype)
    if isinstance(dtype, str):
        return dtype
    if inst.ddof and kind not in (ops.ReduceKind.VAR, ops.ReduceKind.STD):
        return f"{shown} takes no ddof"  # the table gives ddof only to var and std
    return Resolved(kind, axes, reduced_type(t, axes, inst.keepdims, dtype))


def _matrix_norm(inst: ops.NumpyReduce, t: ArrayType) -> bool:
    """``np.linalg.norm(a, 1)`` or ``np.linalg.norm(a, np.inf)`` of a 2-D array (every
    axis): NumPy's largest column or row sum of ``abs(a)``, 0 for an empty matrix."""
    return inst.fn in ("norm:1", "norm:inf") and t.ndim == 2 and inst.axes is None


def _norm_axes(inst: ops.NumpyReduce, t: ArrayType) -> str | None:
    """Why ``np.linalg.norm(x, ord, axis=...)`` is not supported (None: it is): vector
    norms along one axis (ord None, 1, 2, inf) and the Frobenius norm over two (ord None
    or 'fro'), as NumPy's ``norm`` computes them (``sqrt(add.reduce(x * x, axis))``,
    ``add.reduce(abs(x), axis)``, ``abs(x).max(axis, initial=0)``); NumPy's messages for
    the orders that do not apply."""
    assert inst.axes is not None
    if len(inst.axes) == 1 and inst.fn == "norm:fro":
        return f"{inst.shown}: Invalid norm order 'fro' for vectors"
    if len(inst.axes) == 2 and inst.fn not in ("norm:None", "norm:fro"):
        return (
            f"{inst.shown} over two axes with ord={inst.fn[5:]} (a matrix norm) is not "
            "supported; only the Frobenius norm"
        )
    if len(inst.axes) > 2:
        return f"{inst.shown}: Improper number of dimensions to norm."
    return None


def _normalized(axes: tuple[int, ...] | None, ndim: int) -> tuple[int, ...] | str:
    """``axes`` in ``[0, ndim)``, sorted (None: all of them), or NumPy's message."""
    if axes is None:
        return tuple(range(ndim))
    out = []
    for a in axes:
        if not -ndim <= a < ndim:
            return f"axis {a} is out of bounds for array of dimension {ndim}"
        out.append(a % ndim)
    if len(set(out)) != len(out):
        return "duplicate value in 'axis'"
    return tuple(sorted(out))


def _accumulator(shown: str, source: ScalarType, requested: str) -> ScalarType | str:
    """The result dtype of a sum or product (``np.sum``, ``np.cumprod``)."""
    if not requested:
        return source if source.is_float else I64
    dtype = SCALARS[requested]
    if dtype in (I1, I8):
        return f"{shown} with dtype={python_name(dtype)} is not supported"
    if source.is_float and not dtype.is_float:
        return (
            f"{shown} of {python_name(source)} elements with dtype={python_name(dtype)} is "
            "not supported (NumPy would cast each element unsafely)"
        )
    return dtype


def _result_dtype(
    shown: str, kind: ops.ReduceKind, source: ScalarType, requested: str
) -> ScalarType | str:
    """The result dtype of ``kind`` over ``source`` elements (the module docstring)."""
    if kind in (ops.ReduceKind.SUM, ops.ReduceKind.PROD):
        return _accumulator(shown, source, requested)
    if kind in _FLOAT_RESULT:
        if requested:
            dtype = SCALARS[requested]
            if not dtype.is_float:
                return f"{shown} with dtype={python_name(dtype)} is not supported"
            return dtype
        return source if source.is_float else F64
    if kind in (ops.ReduceKind.ARGMIN, ops.ReduceKind.ARGMAX):
        return I64
    if kind in (ops.ReduceKind.ANY, ops.ReduceKind.ALL):
        return I1
    if kind == ops.ReduceKind.PYSUM:
        return I64 if source.is_bool else source  # 0 + x (NEP 50: the int 0 is weak)
    return source  # min, max


@TRANSFER.register(ops.NumpyReduce)
def _numpy_reduce(inf: Inference, spec: Spec, inst: Instruction) -> Type | None:
    """The result type of a reduction of an array; an error for any other operand."""
    assert isinstance(inst, ops.NumpyReduce)
    t = inst.array.type
    if isinstance(t, UnknownType):
        return None
    if not isinstance(t, ArrayType):
        raise inf.error(
            f"{inst.shown} of a value of type {python_name(t)} is not supported (only arrays)",
            inst,
        )
    resolved = resolve(inst, t)
    if isinstance(resolved, str):
        raise inf.error(resolved, inst)
    return resolved.type


@_front_end(ops.NumpyReduce)
def _materialize(m: Materializer, inst: ops.NumpyReduce) -> Value | None:
    t = inst.array.type
    assert isinstance(t, ArrayType)
    resolved = resolve(inst, t)
    assert isinstance(resolved, Resolved)
    if isinstance(resolved.kind, ops.CumKind):
        assert not isinstance(resolved.axes, tuple)
        return m.b.insert(ops.Cumulate(resolved.kind, inst.array, resolved.axes, type=inst.type))
    assert isinstance(resolved.axes, tuple)
    if _matrix_norm(inst, t):
        # NumPy's add.reduce(abs(x), axis=row).max(axis=col, initial=0): the sums are not
        # negative, so their max from 0 is their inf-norm (0 when empty)
        sums_t = ArrayType(_norm_dtype(inst.type), 2 if inst.keepdims else 1, "C")
        sums = m.b.insert(
            ops.Reduce(
                ops.ReduceKind.NORM1,
                inst.array,
                (0,) if inst.fn == "norm:1" else (1,),
                keepdims=inst.keepdims,
                type=sums_t,
            )
        )
        axes = (0, 1) if inst.keepdims else (0,)
        kind = ops.ReduceKind.NORMINF
        return m.b.insert(ops.Reduce(kind, sums, axes, keepdims=inst.keepdims, type=inst.type))
    return m.b.insert(
        ops.Reduce(
            resolved.kind,
            inst.array,
            resolved.axes,
            ddof=inst.ddof,
            keepdims=inst.keepdims,
            type=inst.type,
        )
    )


def _norm_dtype(t: Type) -> ScalarType:
    d = t.dtype if isinstance(t, ArrayType) else t
    assert isinstance(d, ScalarType)
    return d
