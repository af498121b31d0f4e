"""Typing of :mod:`gradc.compiler.ir.ops.reorder` (``np.diag``, ``np.tril``/``np.triu``,
``np.roll``, ``np.sort``/``np.argsort``/``np.median``): NumPy 2's result types.

``np.diag`` of a 1-D array is 2-D and of a 2-D array 1-D (other ranks: NumPy's
ValueError "Input must be 1- or 2-d.", here at compile time); ``tril``/``triu`` keep the
type (rank 2 or more; NumPy's 1-D form, which broadcasts to a matrix, is refused);
``roll`` keeps it; ``sort`` keeps it, ``argsort`` gives ``int64``, ``median`` drops the
sorted axis in :func:`~gradc.compiler.ir.ops.reorder.median_dtype`. Results are new
C-contiguous arrays. Diagonals and shifts are ints (a float is a compile error, NumPy's
TypeError); the materialisation rules cast them to ``i64``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gradc.compiler.infer.materialize import MATERIALIZE, Materializer
from gradc.compiler.infer.rules import TRANSFER
from gradc.compiler.ir import ops
from gradc.compiler.ir.core import Instruction, Value
from gradc.compiler.ir.ops.reorder import median_dtype
from gradc.compiler.ir.types import I64, ArrayType, ScalarType, Type, UnknownType, python_name

if TYPE_CHECKING:
    from gradc.compiler.infer.specialize import Inference, Spec


def _array(inf: Inference, inst: Instruction, value: Value, what: str) -> ArrayType | None:
    t = value.type
    if isinstance(t, UnknownType):
        return None
    if not isinstance(t, ArrayType):
        raise inf.error(f"{what} of a {python_name(t)} is not supported: pass an array", inst)
    return t


def _int(inf: Inference, inst: Instruction, value: Value, what: str) -> bool:
    """True once ``value``'s type is known to be an int (a bool counts); else a compile
    error for a float or an array."""
    t = value.type
    if isinstance(t, UnknownType):
        return False
    if not isinstance(t, ScalarType) or t.is_float:
        raise inf.error(f"{what} must be an int, not {python_name(t)}", inst)
    return True


@TRANSFER.register(ops.Diag)
def _diag(inf: Inference, spec: Spec, inst: Instruction) -> Type | None:
    assert isinstance(inst, ops.Diag)
    t = _array(inf, inst, inst.array, "np.diag()")
    if t is None or not _int(inf, inst, inst.diagonal, "np.diag() k"):
        return None
    if t.ndim not in (1, 2):
        raise inf.error("Input must be 1- or 2-d.", inst)
    return ArrayType(t.dtype, 3 - t.ndim, "C")


@TRANSFER.register(ops.Triangle)
def _triangle(inf: Inference, spec: Spec, inst: Instruction) -> Type | None:
    assert isinstance(inst, ops.Triangle)
    name = "np.triu()" if inst.upper else "np.tril()"
    t = _array(inf, inst, inst.array, name)
    if t is None or not _int(inf, inst, inst.diagonal, f"{name} k"):
        return None
    if t.ndim < 2:
        raise inf.error(f"{name} of a {t.ndim}-D array is not supported (2-D or more)", inst)
    return ArrayType(t.dtype, t.ndim, "C")


@TRANSFER.register(ops.Roll)
def _roll(inf: Inference, spec: Spec, inst: Instruction) -> Type | None:
    assert isinstance(inst, ops.Roll)
    t = _array(inf, inst, inst.array, "np.roll()")
    if t is None or not _int(inf, inst, inst.shift, "np.roll() shift"):
        return None
    if not inst.flat:
        axis = inst.axis + t.ndim if inst.axis < 0 else inst.axis
        if not 0 <= axis < t.ndim:
            raise inf.error(
                f"axis {inst.axis} is out of bounds for array of dimension {t.ndim}", inst
            )
        inst.axis = axis
    return ArrayType(t.dtype, t.ndim, "C")


@TRANSFER.register(ops.Sort)
def _sort(inf: Inference, spec: Spec, inst: Instruction) -> Type | None:
    assert isinstance(inst, ops.Sort)
    t = _array(inf, inst, inst.array, f"np.{inst.kind}()")
    if t is None:
        return None
    if t.ndim == 0:
        raise inf.error(f"np.{inst.kind}() of a 0-d array is not supported", inst)
    axis = inst.axis + t.ndim if inst.axis < 0 else inst.axis
    if not 0 <= axis < t.ndim:
        raise inf.error(f"axis {inst.axis} is out of bounds for array of dimension {t.ndim}", inst)
    inst.axis = axis
    if inst.kind == ops.SortKind.MEDIAN:
        dtype = median_dtype(t.dtype)
        return dtype if t.ndim == 1 else ArrayType(dtype, t.ndim - 1, "C")
    return ArrayType(I64 if inst.kind == ops.SortKind.ARGSORT else t.dtype, t.ndim, "C")


@MATERIALIZE.register(ops.Diag)
def _diag_casts(m: Materializer, inst: Instruction) -> None:
    assert isinstance(inst, ops.Diag)
    inst.diagonal = m.coerce(inst.diagonal, I64, inst)


@MATERIALIZE.register(ops.Triangle)
def _triangle_casts(m: Materializer, inst: Instruction) -> None:
    assert isinstance(inst, ops.Triangle)
    inst.diagonal = m.coerce(inst.diagonal, I64, inst)


@MATERIALIZE.register(ops.Roll)
def _roll_casts(m: Materializer, inst: Instruction) -> None:
    assert isinstance(inst, ops.Roll)
    inst.shift = m.coerce(inst.shift, I64, inst)
