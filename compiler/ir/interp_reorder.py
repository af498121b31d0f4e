"""Interpreter rules of :mod:`.ops.reorder` (``np.diag``, ``np.tril``/``np.triu``,
``np.roll``, ``np.sort``/``np.argsort``/``np.median``) and :mod:`.ops.solve`
(``np.linalg.inv``/``solve``/``det``, NumPy's LinAlgError raised as the ValueError
compiled code raises), computed with NumPy: the oracle
the ``lower-arrays`` loops are tested against. ``argsort`` is NumPy's stable sort, the
order gradc's loops give tied elements."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from gradc.compiler.ir import ops
from gradc.compiler.ir.core import Instruction
from gradc.compiler.ir.interp_values import NUMPY_DTYPES, RULES
from gradc.compiler.ir.ops.batched import BATCH_MISMATCH
from gradc.compiler.ir.ops.linalg import contract_mismatch
from gradc.compiler.ir.ops.solve import (
    NOT_POSITIVE_DEFINITE,
    NOT_SQUARE,
    SINGULAR,
    SOLVE_MISMATCH,
)
from gradc.compiler.ir.types import ArrayType, ScalarType

if TYPE_CHECKING:
    from gradc.compiler.ir.interp import Machine


def _np() -> Any:
    import numpy as np  # lazily: only array programs need NumPy

    return np


def _array(inst: Instruction, x: Any) -> Any:
    t = inst.type
    assert isinstance(t, ArrayType)
    return _np().ascontiguousarray(x, dtype=NUMPY_DTYPES[t.dtype.name])


@RULES.register(ops.Diag)
def _diag(m: Machine, inst: Instruction, vals: list[object]) -> object:
    array, k = vals
    return _array(inst, _np().diag(array, k))


@RULES.register(ops.Triangle)
def _triangle(m: Machine, inst: Instruction, vals: list[object]) -> object:
    assert isinstance(inst, ops.Triangle)
    np = _np()
    array, k = vals
    return _array(inst, (np.triu if inst.upper else np.tril)(array, k))


@RULES.register(ops.Roll)
def _roll(m: Machine, inst: Instruction, vals: list[object]) -> object:
    assert isinstance(inst, ops.Roll)
    array, shift = vals
    return _array(inst, _np().roll(array, shift, None if inst.flat else inst.axis))


@RULES.register(ops.Sort)
def _sort(m: Machine, inst: Instruction, vals: list[object]) -> object:
    assert isinstance(inst, ops.Sort)
    np = _np()
    (array,) = vals
    if inst.kind == ops.SortKind.SORT:
        return _array(inst, np.sort(array, axis=inst.axis, kind="stable"))
    if inst.kind == ops.SortKind.ARGSORT:
        return _array(inst, np.argsort(array, axis=inst.axis, kind="stable"))
    t = inst.type
    element = t.dtype if isinstance(t, ArrayType) else t
    assert isinstance(element, ScalarType)
    dtype = NUMPY_DTYPES[element.name]
    with np.errstate(all="ignore"):
        shape: tuple[int, ...] = array.shape  # type: ignore[attr-defined]
        if shape[inst.axis] == 0:
            result = np.full(shape[: inst.axis] + shape[inst.axis + 1 :], np.nan, dtype=dtype)
        else:
            result = np.median(array, axis=inst.axis).astype(dtype)
    if isinstance(t, ScalarType):
        return float(result)
    return _array(inst, result)


def _check_batches(lb: tuple[int, ...], rb: tuple[int, ...]) -> None:
    """NumPy's broadcasting of two stacks' batch axes (compiled code's message)."""
    for axis in range(1, max(len(lb), len(rb)) + 1):
        x = lb[-axis] if axis <= len(lb) else 1
        y = rb[-axis] if axis <= len(rb) else 1
        if x != y and 1 not in (x, y):
            raise ValueError(BATCH_MISMATCH.format(x, y, -axis))


@RULES.register(ops.LinalgSolve)
def _linalg_solve(m: Machine, inst: Instruction, vals: list[object]) -> object:
    assert isinstance(inst, ops.LinalgSolve)
    np = _np()
    a: Any = vals[0]
    n = a.shape[-1]
    if a.shape[-2] != n:
        raise ValueError(NOT_SQUARE)
    t = inst.type
    element = t.dtype if isinstance(t, ArrayType) else t
    assert isinstance(element, ScalarType)
    dtype = NUMPY_DTYPES[element.name]
    if inst.kind == ops.SolveKind.DET:
        det = np.linalg.det(a.astype(dtype))
        return float(det) if isinstance(t, ScalarType) else _array(inst, det)
    if inst.kind == ops.SolveKind.SOLVE:
        b: Any = vals[1]
        core = b.shape[0] if b.ndim == 1 else b.shape[-2]
        if core != n:
            raise ValueError(SOLVE_MISMATCH[min(b.ndim, 2)].format(core, n))
        _check_batches(a.shape[:-2], b.shape[:-2] if b.ndim >= 2 else ())
    if inst.kind == ops.SolveKind.CHOLESKY:
        try:
            return _array(inst, np.linalg.cholesky(a.astype(dtype)))
        except np.linalg.LinAlgError as exc:
            raise ValueError(NOT_POSITIVE_DEFINITE) from exc
    try:
        if inst.kind == ops.SolveKind.INV:
            result = np.linalg.inv(a.astype(dtype))
        else:
            result = np.linalg.solve(a.astype(dtype), vals[1].astype(dtype))  # type: ignore[attr-defined]
    except np.linalg.LinAlgError as exc:
        raise ValueError(SINGULAR) from exc
    return _array(inst, result)


def _check_matmul_batches(lhs: Any, rhs: Any) -> None:
    k_rhs = rhs.shape[0] if rhs.ndim == 1 else rhs.shape[-2]
    if lhs.shape[-1] != k_rhs:
        template, _ = contract_mismatch("matmul", 2, 2)
        raise ValueError(template.format(k_rhs, lhs.shape[-1]))
    _check_batches(lhs.shape[:-2], rhs.shape[:-2])


@RULES.register(ops.BatchMatmul)
def _batch_matmul(m: Machine, inst: Instruction, vals: list[object]) -> object:
    np = _np()
    lhs: Any = vals[0]
    rhs: Any = vals[1]
    _check_matmul_batches(lhs, rhs)
    return _array(inst, np.matmul(lhs, rhs))
