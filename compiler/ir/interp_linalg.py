"""Interpreter rules of linear algebra (:mod:`.ops.linalg`) and array construction
(:mod:`.ops.construct`), computed with NumPy: the oracle the ``lower-arrays`` loop
nests are tested against (the interpreter on IR before the pass equals it after).

Shape errors are checked here, before NumPy runs, with the messages compiled code
raises (:func:`~.ops.linalg.contract_mismatch`), so the two agree to the letter.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from gradc.compiler.ir import ops
from gradc.compiler.ir.core import Instruction
from gradc.compiler.ir.interp_values import MESSAGES, NUMPY_DTYPES, RULES, wrap_int
from gradc.compiler.ir.ops.construct import CONCAT_MISMATCH
from gradc.compiler.ir.ops.linalg import contract_axes, contract_mismatch
from gradc.compiler.ir.types import ArrayType, ScalarType

if TYPE_CHECKING:
    from gradc.compiler.ir.interp import Machine


def _np() -> Any:
    import numpy as np  # lazily: only array programs need NumPy

    return np


def _dtype(inst: Instruction) -> str:
    t = inst.type
    if isinstance(t, ArrayType):
        return NUMPY_DTYPES[t.dtype.name]
    assert isinstance(t, ScalarType)
    return NUMPY_DTYPES[t.name]


def _scalar(inst: Instruction, x: Any) -> object:
    t = inst.type
    assert isinstance(t, ScalarType)
    return bool(x) if t.is_bool else float(x) if t.is_float else int(x)


def contract_error(kind: str, lhs: Any, rhs: Any) -> str | None:
    """The ValueError message of ``kind(lhs, rhs)`` for these operands, or None when
    their contracted axes match."""
    if kind == ops.ContractKind.VDOT:
        mismatch = lhs.size != rhs.size
    else:
        la, ra = contract_axes(kind, lhs.ndim, rhs.ndim)
        mismatch = lhs.shape[la] != rhs.shape[ra]
    if not mismatch:
        return None
    template, fields = contract_mismatch(kind, lhs.ndim, rhs.ndim)
    operands = (lhs, rhs)
    values = [operands[k].size if axis < 0 else operands[k].shape[axis] for k, axis in fields]
    return template.format(*values)


@RULES.register(ops.Contract)
def _contract(m: Machine, inst: Instruction, vals: list[object]) -> object:
    assert isinstance(inst, ops.Contract)
    np = _np()
    lhs, rhs = vals
    message = contract_error(inst.kind, lhs, rhs)
    if message is not None:
        raise ValueError(message)
    fn = {"matmul": np.matmul, "dot": np.dot, "inner": np.inner, "vdot": np.vdot}[inst.kind]
    result = fn(lhs, rhs)
    if isinstance(inst.type, ArrayType):
        return np.ascontiguousarray(result, dtype=_dtype(inst))
    return _scalar(inst, result)


@RULES.register(ops.Outer)
def _outer(m: Machine, inst: Instruction, vals: list[object]) -> object:
    np = _np()
    return np.ascontiguousarray(np.outer(*vals), dtype=_dtype(inst))


@RULES.register(ops.Trace)
def _trace(m: Machine, inst: Instruction, vals: list[object]) -> object:
    return _scalar(inst, _np().trace(vals[0], dtype=_dtype(inst)))


@RULES.register(ops.Arange)
def _arange(m: Machine, inst: Instruction, vals: list[object]) -> object:
    start, stop, step = vals
    if step == 0:
        raise ZeroDivisionError(
            MESSAGES["float_div_zero"] if isinstance(step, float) else MESSAGES["int_div_zero"]
        )
    return _np().arange(start, stop, step, dtype=_dtype(inst))


@RULES.register(ops.Linspace)
def _linspace(m: Machine, inst: Instruction, vals: list[object]) -> object:
    assert isinstance(inst, ops.Linspace)
    start, stop, num = vals
    assert isinstance(num, int)
    if num < 0:
        raise ValueError(f"Number of samples, {num}, must be non-negative.")
    return _np().linspace(start, stop, num, endpoint=not inst.no_endpoint, dtype=_dtype(inst))


@RULES.register(ops.Eye)
def _eye(m: Machine, inst: Instruction, vals: list[object]) -> object:
    rows, cols, k = vals
    assert isinstance(rows, int) and isinstance(cols, int) and isinstance(k, int)
    if rows < 0 or cols < 0:
        raise ValueError(MESSAGES["negative_dims"])
    return _np().eye(rows, cols, k, dtype=_dtype(inst))


@RULES.register(ops.ArrayLiteral)
def _arraylit(m: Machine, inst: Instruction, vals: list[object]) -> object:
    assert isinstance(inst, ops.ArrayLiteral)
    return _np().array(vals, dtype=_dtype(inst)).reshape(inst.shape)


@RULES.register(ops.Concatenate)
def _concat(m: Machine, inst: Instruction, vals: list[object]) -> object:
    assert isinstance(inst, ops.Concatenate)
    np = _np()
    message = concat_error(inst.kind, inst.axis, vals)
    if message is not None:
        raise ValueError(message)
    if inst.kind == "vstack":
        joined = np.vstack(vals)
    else:
        joined = (np.stack if inst.kind == "stack" else np.concatenate)(vals, axis=inst.axis)
    return np.ascontiguousarray(joined, dtype=_dtype(inst))


def concat_error(kind: str, axis: int, arrays: list[Any]) -> str | None:
    """NumPy's ValueError message when ``arrays`` cannot be joined (``kind``, ``axis``:
    a :class:`~.ops.construct.JoinKind` and its axis), or None."""
    shapes = [(1, *a.shape) if kind == "vstack" else a.shape for a in arrays]
    for index, shape in enumerate(shapes[1:], start=1):
        if kind == "stack":
            if shape != shapes[0]:
                return "all input arrays must have the same shape"
            continue
        for k, (n, size) in enumerate(zip(shapes[0], shape, strict=True)):
            if k != axis and n != size:
                return CONCAT_MISMATCH.format(k, n, index, size)
    return None


@RULES.register(ops.AsType)
def _astype(m: Machine, inst: Instruction, vals: list[object]) -> object:
    np = _np()
    (array,) = vals
    t = inst.type
    assert isinstance(t, ArrayType)
    if not t.dtype.is_bool and t.dtype.is_int and array.dtype.kind == "f":  # type: ignore[attr-defined]
        for x in array.flat:  # type: ignore[attr-defined]  # raise as Cast, in C order
            if math.isnan(x):
                raise ValueError(MESSAGES["cast_nan"])
            if math.isinf(x):
                raise OverflowError(MESSAGES["cast_inf"])
            if wrap_int(int(x), t.dtype.bits) != int(x):
                raise OverflowError(MESSAGES["cast_range"])
    return np.array(array, dtype=_dtype(inst), order="C")
