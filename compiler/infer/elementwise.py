"""Typing and materialisation of whole-array arithmetic: an operator or a NumPy function
with an array operand (``a + 1.0``, ``x < y``, ``np.exp(x)``, ``np.where(c, a, b)``)
becomes an :class:`~gradc.compiler.ir.ops.Elementwise` of NumPy's ufunc.

Result dtypes are NumPy 2's (NEP 50). Arrays are strongly typed: their dtypes promote
(``float32`` with ``int64`` is ``float64``). A Python scalar is weak: it does not change
the dtype of an array of its kind or a higher one (``f32 array * 2.0`` is ``float32``,
``int64 array + True`` is ``int64``); of a higher kind it brings its default type (``bool
array + 1`` is ``int64``, ``int64 array * 0.5`` is ``float64``). Which scalars are Python's
is compiler/infer/weak.py's rule (literals, module constants and an export's scalar
parameters are; ``a[i]``, ``np.float64(x)`` and NumPy functions' results are not), the
promotion compiler/ir/promotion.py's; a scalar that may be either where the two readings
give different dtypes is a compile-time error rather than a guess.

``x ** p`` with a scalar ``p`` follows ``ndarray.__pow__``'s fast path (numpy/_core/src/
multiarray/number.c ``fast_scalar_power``): for a float array, ``p == 2`` is
``np.square``, ``p == 0.5`` ``np.sqrt``, ``p == -1`` ``np.reciprocal`` (chosen at compile
time for a constant, at run time otherwise: ``power_scalar``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from gradc.compiler.ir import numpy_math, ops, ufuncs
from gradc.compiler.ir.core import Instruction, Value
from gradc.compiler.ir.types import (
    F32,
    F64,
    I1,
    I64,
    NONE,
    ArrayType,
    ScalarType,
    Type,
    UnknownType,
    python_name,
)

if TYPE_CHECKING:
    from gradc.compiler.infer.materialize import Materializer

#: The ufunc of each Python operator on arrays.
OPERATOR_UFUNCS: dict[type[Instruction], str] = {
    ops.Add: "add",
    ops.Sub: "subtract",
    ops.Mul: "multiply",
    ops.Div: "true_divide",
    ops.FloorDiv: "floor_divide",
    ops.Mod: "remainder",
    ops.Pow: "power",
    ops.BitAnd: "bitwise_and",
    ops.BitOr: "bitwise_or",
    ops.BitXor: "bitwise_xor",
    ops.LShift: "left_shift",
    ops.RShift: "right_shift",
    ops.Neg: "negative",
    ops.Abs: "absolute",
    ops.Invert: "invert",
}

#: The ufunc of each comparison on arrays.
COMPARISON_UFUNCS: dict[str, str] = {
    "eq": "equal",
    "ne": "not_equal",
    "lt": "less",
    "le": "less_equal",
    "gt": "greater",
    "ge": "greater_equal",
}

#: The dtypes of arrays whole-array arithmetic supports.
ARRAY_DTYPES = (F64, F32, I64, I1)

#: ``fast_scalar_power``: a scalar exponent with this value is this ufunc (float arrays).
FAST_POWERS: dict[float, str] = {2.0: "square", 0.5: "sqrt", -1.0: "reciprocal"}


def applies(inst: Instruction) -> bool:
    """``inst`` is whole-array arithmetic: an operator, comparison or NumPy function with
    an array operand (as typed so far), or a NumPy function only arrays have here."""
    if isinstance(inst, ops.NumpyCall) and inst.fn not in numpy_math.NUMPY_FUNCTIONS:
        return True
    if not isinstance(inst, ops.Cmp | ops.NumpyCall) and type(inst) not in OPERATOR_UFUNCS:
        return False
    return any(isinstance(v.type, ArrayType) for v in inst.operands())


def _ufunc(inst: Instruction) -> str:
    if isinstance(inst, ops.Cmp):
        return COMPARISON_UFUNCS[inst.pred]
    if isinstance(inst, ops.NumpyCall):
        return inst.fn
    return OPERATOR_UFUNCS[type(inst)]


def _kind(t: ScalarType) -> int:
    return 0 if t.is_bool else 2 if t.is_float else 1


Common = Callable[[list[Value], int], "ScalarType | str"]
"""``(operands, how many of them (first) are arrays) -> NumPy's common type`` (NEP 50,
compiler/infer/weak.py), or why it is not decidable."""


def common_type(args: list[Value], condition_first: bool, common: Common) -> ScalarType | str:
    """NEP 50's common type of the operands (the module docstring), or why it is not
    decidable from gradc's types."""
    values = args[1:] if condition_first else args
    arrays = [v for v in values if isinstance(v.type, ArrayType)]
    return common(arrays + [v for v in values if not isinstance(v.type, ArrayType)], len(arrays))


def _scalar_exponent(inst: Instruction) -> Value | None:
    """The exponent of ``float array ** scalar`` (``fast_scalar_power``'s case)."""
    if not isinstance(inst, ops.Pow) or isinstance(inst.rhs.type, ArrayType):
        return None
    base = inst.lhs.type
    return inst.rhs if isinstance(base, ArrayType) and base.dtype.is_float else None


def plan(
    inst: Instruction, common_of: Common
) -> tuple[str, ScalarType, ArrayType | ScalarType] | str:
    """The ufunc, the common operand type and the result type of ``inst`` (operands
    typed, one an array; or scalars of ``np.where``/``np.clip``, ufuncs only this
    module types: a scalar result), or the compile-time error's message."""
    fn = _ufunc(inst)
    args = inst.operands()
    for v in args:
        t = v.type
        if isinstance(t, ArrayType) and t.dtype not in ARRAY_DTYPES:
            return f"whole-array operations on {python_name(t)} arrays are not supported"
        if not isinstance(t, ArrayType | ScalarType):
            return f"unsupported operand type for np.{fn}(): {python_name(t)}"
    u = ufuncs.UFUNCS.get(fn)
    if u is None:
        return f"np.{fn}() is not supported on arrays"
    scalars = not any(isinstance(v.type, ArrayType) for v in args)
    if scalars and fn not in ("where", "clip"):
        return f"np.{fn}() of scalars is not supported (only of arrays)"
    common = common_type(args, u.condition_first, common_of)
    if isinstance(common, str):
        return common
    exponent = _scalar_exponent(inst)
    if exponent is not None:
        fn = _fast_power(exponent)
    result = ufuncs.UFUNCS[fn].loop(common)
    if isinstance(result, str) or scalars:
        return result if isinstance(result, str) else (fn, common, result)
    rank = max(v.type.ndim for v in args if isinstance(v.type, ArrayType))
    return fn, common, ArrayType(result, rank, "C")


def _fast_power(exponent: Value) -> str:
    if isinstance(exponent, ops.Const):
        return FAST_POWERS.get(float(exponent.value), "power")
    return "power_scalar"


def transfer(inst: Instruction, common_of: Common) -> Type | str | None:
    """The result type of ``inst`` with an array operand: None while an operand type is
    unknown, or the compile-time error's message."""
    if any(isinstance(v.type, UnknownType) for v in inst.operands()):
        return None
    planned = plan(inst, common_of)
    if isinstance(planned, str):
        return planned
    return planned[2]


def materialize(m: Materializer, inst: Instruction) -> None:
    """Replace ``inst`` (typed, with an array operand) by its :func:`build`."""
    m.replaced[inst] = build(m, inst)
    inst.erase()


def build(m: Materializer, inst: Instruction) -> Value:
    """The ``elementwise`` computing ``inst`` (typed, with an array operand), inserted
    before it: scalar operands converted to the common type."""
    planned = plan(inst, m.common_type)
    assert not isinstance(planned, str), planned
    fn, common, result = planned
    u = ufuncs.UFUNCS[fn]
    args: list[Value] = []
    for k, v in enumerate(inst.operands()):
        if isinstance(v.type, ArrayType):
            args.append(v)
        else:
            args.append(m.coerce(v, I1 if u.condition_first and k == 0 else common, inst))
    if fn in FAST_POWERS.values():  # x ** 2 is np.square(x): the exponent is gone
        args = args[:1]
    m.b.position_before(inst)
    with m.b.at(inst.loc):
        if isinstance(result, ScalarType):  # np.where/np.clip of scalars
            return u.expand(m.b, args, result)
        return m.b.insert(ops.Elementwise(fn, tuple(args), type=result))


def _same_kind(src: ScalarType, dst: ScalarType) -> bool:
    """NumPy's 'same_kind' casting: within a kind, or to a higher one."""
    return _kind(src) <= _kind(dst)


def inplace_transfer(inst: ops.InPlace) -> Type | str | None:
    """The type of the variable after ``target op= ...``: the target's, for an array
    (the result must cast 'same_kind' to its dtype and not have more axes), else the
    value's; None while unknown; or the compile-time error's message."""
    target, value = inst.target.type, inst.value.type
    if isinstance(target, UnknownType) or isinstance(value, UnknownType):
        return None
    if not isinstance(target, ArrayType):
        return value
    assert isinstance(value, ArrayType), value  # an operation with an array operand
    fn = _ufunc(inst.value) if isinstance(inst.value, Instruction) else "?"
    if not _same_kind(value.dtype, target.dtype):
        return (
            f"Cannot cast ufunc '{fn}' output from dtype('{_numpy_name(value.dtype)}') to "
            f"dtype('{_numpy_name(target.dtype)}') with casting rule 'same_kind' (NumPy's "
            "UFuncTypeError)"
        )
    if value.ndim > target.ndim:
        return (
            f"the result of the in-place '{fn}' has {value.ndim} axes, more than its "
            f"{target.ndim}-D target (NumPy's ValueError: non-broadcastable output operand)"
        )
    return target


def _numpy_name(t: ScalarType) -> str:
    return {"f64": "float64", "f32": "float32", "i64": "int64", "i1": "bool"}[t.name]


def inplace_build(m: Materializer, inst: ops.InPlace) -> Value:
    """The variable's value after ``target op= ...``: an array target is written by an
    ``elementwise_into`` replacing the ``elementwise`` of ``value``."""
    if not isinstance(inst.target.type, ArrayType):
        return inst.value
    e = inst.value
    assert isinstance(e, ops.Elementwise), e
    m.b.position_before(e)
    with m.b.at(inst.loc):
        m.b.insert(ops.ElementwiseInto(e.fn, inst.target, e.args, type=NONE))
    e.erase()
    return inst.target
