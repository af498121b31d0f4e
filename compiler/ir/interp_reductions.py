"""Interpreter rules of the reductions (:mod:`gradc.compiler.ir.ops.reductions`), computed
by NumPy itself: the reference ``lower-arrays`` is checked against (the interpreter on the
IR before the pass must agree with the interpreter after it, up to the summation order).

NumPy's warnings (the mean of an empty slice, ``ddof`` past the count) are silenced, as
compiled code does not warn; the ValueErrors of empty ``min``/``argmin`` ... are NumPy's.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from gradc.compiler.ir import ops
from gradc.compiler.ir.core import Instruction
from gradc.compiler.ir.interp_values import NUMPY_DTYPES, RULES
from gradc.compiler.ir.types import ArrayType, ScalarType

if TYPE_CHECKING:
    from gradc.compiler.ir.interp import Machine

_K = ops.ReduceKind


def _result_dtype(inst: Instruction) -> str:
    t = inst.type
    dtype = t.dtype if isinstance(t, ArrayType) else t
    assert isinstance(dtype, ScalarType)
    return NUMPY_DTYPES[dtype.name]


def _numpy_reduce(a: Any, inst: ops.Reduce, dtype: str) -> Any:
    """NumPy's value of ``inst`` over ``a`` (an array, or a NumPy scalar)."""
    import numpy as np  # lazily: only array programs need NumPy

    axes, keep = inst.axes, inst.keepdims
    kind = inst.kind
    fn: Callable[..., Any]
    if kind in (_K.ARGMIN, _K.ARGMAX):
        axis = axes[0] if len(axes) == 1 else None
        fn = np.argmin if kind == _K.ARGMIN else np.argmax
        return fn(a, axis=axis, keepdims=keep)
    if kind in (_K.MIN, _K.MAX, _K.ANY, _K.ALL):
        extrema: dict[ops.ReduceKind, Callable[..., Any]] = {
            _K.MIN: np.min,
            _K.MAX: np.max,
            _K.ANY: np.any,
            _K.ALL: np.all,
        }
        fn = extrema[kind]
        return fn(a, axis=axes, keepdims=keep)
    if kind in (_K.SUM, _K.PROD, _K.MEAN):
        sums: dict[ops.ReduceKind, Callable[..., Any]] = {
            _K.SUM: np.sum,
            _K.PROD: np.prod,
            _K.MEAN: np.mean,
        }
        fn = sums[kind]
        return fn(a, axis=axes, dtype=dtype, keepdims=keep)
    if kind in (_K.VAR, _K.STD):
        fn = np.var if kind == _K.VAR else np.std
        return fn(a, axis=axes, dtype=dtype, ddof=inst.ddof, keepdims=keep)
    if kind in (_K.MINFROM, _K.MAXFROM):  # the dtype's extreme value as identity
        big = True if a.dtype == bool else np.inf if a.dtype.kind == "f" else np.iinfo(a.dtype).max
        low = (
            False if a.dtype == bool else -np.inf if a.dtype.kind == "f" else np.iinfo(a.dtype).min
        )
        if kind == _K.MINFROM:
            return np.min(a, axis=axes, keepdims=keep, initial=big)
        return np.max(a, axis=axes, keepdims=keep, initial=low)
    if kind in (_K.PYMIN, _K.PYMAX):
        return min(a) if kind == _K.PYMIN else max(a)  # CPython's builtins, NumPy scalars
    if kind == _K.PYSUM:
        return sum(a)  # 0 + a[0] + ... with NumPy's scalar arithmetic
    x = np.abs(a.astype(dtype))  # the norms: NumPy's astype(float) of ints
    if kind == _K.NORMINF:
        return np.max(x, axis=axes, keepdims=keep, initial=0)
    if kind == _K.NORM1:
        return np.sum(x, axis=axes, keepdims=keep)
    return np.sqrt(np.sum(x * x, axis=axes, keepdims=keep))


def _as_result(inst: Instruction, value: Any, dtype: str) -> object:
    """A new C-contiguous array of the result dtype, or a Python scalar."""
    import numpy as np

    if isinstance(inst.type, ArrayType):
        return np.asarray(value).astype(dtype, order="C", copy=True)
    x = np.asarray(value).astype(dtype).item()
    t = inst.type
    assert isinstance(t, ScalarType)
    return bool(x) if t.is_bool else float(x) if t.is_float else int(x)


@RULES.register(ops.Reduce)
def _reduce(m: Machine, inst: Instruction, vals: list[object]) -> object:
    import numpy as np

    assert isinstance(inst, ops.Reduce)
    dtype = _result_dtype(inst)
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)
        value = _numpy_reduce(vals[0], inst, dtype)
    return _as_result(inst, value, dtype)


@RULES.register(ops.Cumulate)
def _cumulate(m: Machine, inst: Instruction, vals: list[object]) -> object:
    import numpy as np

    assert isinstance(inst, ops.Cumulate)
    dtype = _result_dtype(inst)
    fn: Callable[..., Any] = np.cumsum if inst.kind == ops.CumKind.CUMSUM else np.cumprod
    with np.errstate(all="ignore"):
        result = np.asarray(fn(vals[0], axis=inst.axis, dtype=dtype))
        return result.astype(dtype, order="C", copy=True)
