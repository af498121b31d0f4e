"""Typing of linear algebra (:mod:`gradc.compiler.ir.ops.linalg`) and array construction
(:mod:`gradc.compiler.ir.ops.construct`): NumPy 2's result dtypes.

* ``@``/``np.matmul``/``np.dot``/``np.inner``/``np.vdot``/``np.outer``: the promotion of
  the two dtypes (:func:`~gradc.compiler.ir.types.join`, NumPy's for arrays); 1-D·1-D
  and ``vdot`` give a scalar. ``np.trace``: NumPy's sum accumulator (ints to ``int64``).
* ``np.arange``: ``int64`` when every argument is an int, else ``float64``;
  ``np.linspace``/``np.eye``/``np.identity``: ``float64``; ``dtype=`` overrides.
* ``np.array`` of a literal: the promotion of its scalars (Python's ``bool < int <
  float``), ``np.concatenate``/``np.stack``: of the arrays.

Each rule also records the result dtype in the operation's ``dtype`` attribute; the
materialisation rules cast scalar operands to the types the operation requires.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gradc.compiler.infer.materialize import MATERIALIZE, Materializer
from gradc.compiler.infer.rules import TRANSFER
from gradc.compiler.ir import ops
from gradc.compiler.ir.core import Instruction, Value
from gradc.compiler.ir.ops.batched import batched_matmul_type
from gradc.compiler.ir.ops.linalg import contract_type, trace_dtype
from gradc.compiler.ir.ops.views import FULL_SLICE, NEW_ITEM, view_type
from gradc.compiler.ir.types import (
    F64,
    I64,
    SCALARS,
    ArrayType,
    ScalarType,
    Type,
    UnknownType,
    join,
    python_name,
)

if TYPE_CHECKING:
    from gradc.compiler.infer.specialize import Inference, Spec

_FN_NAMES = {"matmul": "matmul", "dot": "dot", "inner": "inner", "vdot": "vdot"}


def _arrays(inf: Inference, inst: Instruction, what: str) -> list[ArrayType] | None:
    """The operands' array types; None while one is unknown; a compile error for a
    non-array (scalars of ``np.dot`` included: NumPy would multiply them)."""
    types = [v.type for v in inst.operands()]
    if any(isinstance(t, UnknownType) for t in types):
        return None
    for t in types:
        if not isinstance(t, ArrayType):
            raise inf.error(
                f"{what} of a scalar ({python_name(t)}) is not supported: its operands must be "
                "arrays",
                inst,
            )
    return types  # type: ignore[return-value]


@TRANSFER.register(ops.Contract)
def _contract(inf: Inference, spec: Spec, inst: Instruction) -> Type | None:
    assert isinstance(inst, ops.Contract)
    what = "'@'" if inst.kind == "matmul" else f"np.{_FN_NAMES[inst.kind]}()"
    types = _arrays(inf, inst, what)
    if types is None:
        return None
    if inst.kind == "matmul" and max(t.ndim for t in types) > 2:  # rules_batched.py
        return batched_matmul_type(types[0], types[1])
    result = contract_type(inst.kind, types[0], types[1])
    if isinstance(result, str):
        raise inf.error(result, inst)
    return result


@TRANSFER.register(ops.Outer)
def _outer(inf: Inference, spec: Spec, inst: Instruction) -> Type | None:
    types = _arrays(inf, inst, "np.outer()")
    if types is None:
        return None
    return ArrayType(join(types[0].dtype, types[1].dtype), 2, "C")  # type: ignore[arg-type]


@TRANSFER.register(ops.Trace)
def _trace(inf: Inference, spec: Spec, inst: Instruction) -> Type | None:
    types = _arrays(inf, inst, "np.trace()")
    if types is None:
        return None
    if types[0].ndim != 2:
        raise inf.error(
            f"np.trace() of a {types[0].ndim}-D array is not supported (2-D only)", inst
        )
    return trace_dtype(types[0].dtype)


@TRANSFER.register(ops.AsType)
def _astype(inf: Inference, spec: Spec, inst: Instruction) -> Type | None:
    assert isinstance(inst, ops.AsType)
    types = _arrays(inf, inst, "astype()")
    if types is None:
        return None
    return ArrayType(SCALARS[inst.dtype], types[0].ndim, "C")


def _scalars(
    inf: Inference, values: list[Value], inst: Instruction, what: str
) -> ScalarType | None:
    """The join of scalar operands ``values``; None while one is unknown."""
    result: ScalarType | None = None
    for v in values:
        t = v.type
        if isinstance(t, UnknownType):
            return None
        if not isinstance(t, ScalarType):
            raise inf.error(f"{what} takes numbers, not a {python_name(t)}", inst)
        result = t if result is None else join(result, t)  # type: ignore[assignment]
    return result


@TRANSFER.register(ops.Arange)
def _arange(inf: Inference, spec: Spec, inst: Instruction) -> Type | None:
    assert isinstance(inst, ops.Arange)
    j = _scalars(inf, [inst.start, inst.stop, inst.step], inst, "np.arange()")
    if j is None:
        return None
    dtype = SCALARS[inst.dtype] if inst.dtype else F64 if j.is_float else I64
    if dtype.is_bool:
        raise inf.error("np.arange() of dtype bool is not supported", inst)
    if j.is_float and not dtype.is_float:
        raise inf.error(
            f"np.arange() with float arguments and an integer dtype ({python_name(dtype)}) is "
            "not supported",
            inst,
        )
    inst.dtype = dtype.name
    return ArrayType(dtype, 1, "C")


@TRANSFER.register(ops.Linspace)
def _linspace(inf: Inference, spec: Spec, inst: Instruction) -> Type | None:
    assert isinstance(inst, ops.Linspace)
    if _scalars(inf, [inst.start, inst.stop], inst, "np.linspace()") is None:
        return None
    num = _scalars(inf, [inst.num], inst, "np.linspace()")
    if num is None:
        return None
    if num.is_float:
        raise inf.error("np.linspace() num must be an int, not float", inst)
    dtype = SCALARS[inst.dtype] if inst.dtype else F64
    if not dtype.is_float:
        raise inf.error(
            f"np.linspace() with dtype {python_name(dtype)} is not supported (floats only)", inst
        )
    inst.dtype = dtype.name
    return ArrayType(dtype, 1, "C")


@TRANSFER.register(ops.Eye)
def _eye(inf: Inference, spec: Spec, inst: Instruction) -> Type | None:
    assert isinstance(inst, ops.Eye)
    j = _scalars(inf, [inst.rows, inst.cols, inst.diagonal], inst, "np.eye()")
    if j is None:
        return None
    if j.is_float:
        raise inf.error("np.eye() sizes and k must be ints", inst)
    dtype = SCALARS[inst.dtype] if inst.dtype else F64
    inst.dtype = dtype.name
    return ArrayType(dtype, 2, "C")


@TRANSFER.register(ops.ArrayLiteral)
def _arraylit(inf: Inference, spec: Spec, inst: Instruction) -> Type | None:
    assert isinstance(inst, ops.ArrayLiteral)
    j = _scalars(inf, list(inst.elements), inst, "np.array()")
    if j is None and inst.elements:
        return None
    if inst.dtype:
        dtype = SCALARS[inst.dtype]
    else:
        dtype = F64 if j is None else I64 if j.is_int and not j.is_bool else j
    if j is not None and j.is_float and not dtype.is_float:
        raise inf.error(
            f"np.array() of floats with dtype {python_name(dtype)} is not supported "
            "(convert with .astype())",
            inst,
        )
    inst.dtype = dtype.name
    return ArrayType(dtype, len(inst.shape), "C")


@TRANSFER.register(ops.Concatenate)
def _concat(inf: Inference, spec: Spec, inst: Instruction) -> Type | None:
    assert isinstance(inst, ops.Concatenate)
    types = _arrays(inf, inst, f"np.{inst.kind}()")
    if types is None:
        return None
    ndims = [t.ndim for t in types]
    mixed = inst.kind == "vstack" and len(set(ndims)) != 1
    if mixed:
        # NumPy's atleast_2d of each: materialisation makes a 1-D array a row view and
        # the vstack a concatenation (inference may run this rule again: kind stays)
        ndims = [max(n, 2) for n in ndims]
    if len(set(ndims)) != 1:
        if inst.kind == "stack":
            raise inf.error("all input arrays must have the same shape", inst)
        k = next(i for i, n in enumerate(ndims) if n != ndims[0])
        raise inf.error(
            "all the input arrays must have same number of dimensions, but the array at "
            f"index 0 has {ndims[0]} dimension(s) and the array at index {k} has "
            f"{ndims[k]} dimension(s)",
            inst,
        )
    if inst.kind == "hstack":  # NumPy: axis 0 for 1-D arrays, else axis 1
        inst.kind, inst.axis = ops.JoinKind.CONCATENATE, 0 if ndims[0] == 1 else 1
    elif inst.kind == "vstack" and ndims[0] > 1 and not mixed:
        inst.kind = ops.JoinKind.CONCATENATE
    ndim = ndims[0] + int(inst.kind != "concatenate" and not mixed)
    axis = inst.axis + ndim if inst.axis < 0 else inst.axis
    if not 0 <= axis < ndim:
        raise inf.error(f"axis {inst.axis} is out of bounds for array of dimension {ndim}", inst)
    inst.axis = axis
    dtype = types[0].dtype
    for t in types[1:]:
        dtype = join(dtype, t.dtype)  # type: ignore[assignment]
    return ArrayType(dtype, ndim, "C")


# -- materialisation: scalar operands cast to the types the operations require ---------


@MATERIALIZE.register(ops.Concatenate)
def _vstack_rows(m: Materializer, inst: Instruction) -> None:
    """``np.vstack`` of 1-D and 2-D arrays (typed 2-D, still ``vstack``): a
    concatenation along axis 0 of each 1-D operand's view ``v[np.newaxis, :]`` (NumPy's
    ``atleast_2d``) and the 2-D ones."""
    assert isinstance(inst, ops.Concatenate)
    t = inst.type
    ranks = {v.type.ndim for v in inst.arrays if isinstance(v.type, ArrayType)}
    if inst.kind != ops.JoinKind.VSTACK or ranks == {1} or not isinstance(t, ArrayType):
        return
    inst.kind = ops.JoinKind.CONCATENATE
    arrays = list(inst.arrays)
    for k, v in enumerate(arrays):
        vt = v.type
        if isinstance(vt, ArrayType) and vt.ndim < t.ndim:
            items = (NEW_ITEM, FULL_SLICE)
            row = view_type(vt, items)
            assert row is not None  # a 1-D array's row view
            m.b.position_before(inst)
            with m.b.at(inst.loc):
                arrays[k] = m.b.insert(ops.SliceView(v, (), items, type=row))
    inst.arrays = tuple(arrays)


@MATERIALIZE.register(ops.Arange)
def _arange_casts(m: Materializer, inst: Instruction) -> None:
    assert isinstance(inst, ops.Arange)
    t = inst.type
    assert isinstance(t, ArrayType)
    inst.start = m.coerce(inst.start, t.dtype, inst)
    inst.stop = m.coerce(inst.stop, t.dtype, inst)
    inst.step = m.coerce(inst.step, t.dtype, inst)


@MATERIALIZE.register(ops.Linspace)
def _linspace_casts(m: Materializer, inst: Instruction) -> None:
    assert isinstance(inst, ops.Linspace)
    inst.start = m.coerce(inst.start, F64, inst)
    inst.stop = m.coerce(inst.stop, F64, inst)
    inst.num = m.coerce(inst.num, I64, inst)


@MATERIALIZE.register(ops.Eye)
def _eye_casts(m: Materializer, inst: Instruction) -> None:
    assert isinstance(inst, ops.Eye)
    inst.rows = m.coerce(inst.rows, I64, inst)
    inst.cols = m.coerce(inst.cols, I64, inst)
    inst.diagonal = m.coerce(inst.diagonal, I64, inst)


@MATERIALIZE.register(ops.ArrayLiteral)
def _arraylit_casts(m: Materializer, inst: Instruction) -> None:
    assert isinstance(inst, ops.ArrayLiteral)
    t = inst.type
    assert isinstance(t, ArrayType)
    inst.elements = tuple(m.coerce(e, t.dtype, inst) for e in inst.elements)
