"""Interpreter rules of the whole-array elementwise operations, computed by NumPy itself
(so that the interpreter is the oracle of the ``lower-arrays`` pass): the operands are
converted to the common type (``where``'s condition to bool) and NumPy's ufunc applied,
its warnings silenced; broadcasting errors are :mod:`gradc.compiler.ir.broadcasting`'s."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from gradc.compiler.ir import broadcasting, ops, ufuncs
from gradc.compiler.ir.core import Instruction, Value
from gradc.compiler.ir.interp_values import NUMPY_DTYPES, RULES
from gradc.compiler.ir.types import ArrayType, ScalarType

if TYPE_CHECKING:
    from gradc.compiler.ir.interp import Machine


def _element_types(args: tuple[Value, ...]) -> list[ScalarType]:
    out = []
    for a in args:
        t = a.type.dtype if isinstance(a.type, ArrayType) else a.type
        assert isinstance(t, ScalarType)
        out.append(t)
    return out


def _shapes(args: tuple[Value, ...], vals: list[Any]) -> list[tuple[int, ...] | None]:
    return [v.shape if isinstance(a.type, ArrayType) else None for a, v in zip(args, vals)]


def _apply(fn: str, args: tuple[Value, ...], vals: list[Any], result: ScalarType) -> Any:
    """``np.<fn>`` of the operand values (NumPy arrays and Python scalars)."""
    import numpy as np  # lazily: only array programs need NumPy

    common = np.dtype(NUMPY_DTYPES[ufuncs.common_type(fn, _element_types(args)).name])
    converted = [np.asarray(v, dtype=common) for v in vals]
    if ufuncs.UFUNCS[fn].condition_first:
        converted[0] = np.asarray(vals[0], dtype=bool)
    broadcasting.broadcast_shape(_shapes(args, vals))
    with np.errstate(all="ignore"):
        out = getattr(np, fn)(*converted)
    return np.asarray(out, dtype=NUMPY_DTYPES[result.name])


@RULES.register(ops.Elementwise)
def _elementwise(m: Machine, inst: Instruction, vals: list[object]) -> object:
    import numpy as np

    assert isinstance(inst, ops.Elementwise) and isinstance(inst.type, ArrayType)
    out = _apply(inst.fn, inst.args, vals, inst.type.dtype)
    return np.array(np.broadcast_to(out, out.shape), order="C", copy=True)


@RULES.register(ops.ElementwiseInto)
def _elementwise_into(m: Machine, inst: Instruction, vals: list[object]) -> object:
    import numpy as np

    assert isinstance(inst, ops.ElementwiseInto)
    out, *operands = vals
    assert isinstance(out, np.ndarray)
    shape = broadcasting.broadcast_shape([*_shapes(inst.args, operands), out.shape])
    broadcasting.check_output(out.shape, shape)
    dtype = ufuncs.result_type(inst.fn, _element_types(inst.args))
    assert isinstance(dtype, ScalarType)
    out[...] = _apply(inst.fn, inst.args, operands, dtype)  # computed whole first: overlap-safe
    return None
