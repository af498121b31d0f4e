"""Which scalar values are Python scalars and which NumPy ones (NEP 50's weak and strong
operands, compiler/ir/promotion.py), from where each value comes from.

Python scalars (:data:`Origin.PYTHON`): literals and numeric module constants; scalar
parameters of an export (the calling convention: an ``f64`` parameter is a Python
``float``, an ``np.float64`` argument is taken as ``float(x)``; an ``i32`` one a Python
``int`` in int32's range; ``f32`` values are NumPy's by their type, Python has no such
float); ``float()``/``int()``/``bool()``, ``math.*``, ``len()``, ``x.size``/``x.shape``;
``not``. NumPy scalars (:data:`Origin.NUMPY`): ``np.float64(x)``
and the other NumPy scalar types, NumPy functions of scalars, and every scalar read from
or computed of an array (``a[i]``, ``a.sum()``, ``np.dot(u, v)``). An operator keeps
NumPy's scalars (``np.float64(x) + 1.0`` is an ``np.float64``), else Python's; a ``phi`` or
``select`` of both kinds, a helper's parameter (its callers may pass either) and a call's
result are :data:`Origin.EITHER`.
"""

from __future__ import annotations

from collections.abc import Callable

from gradc.compiler.ir import ops
from gradc.compiler.ir.core import Function, Instruction, Value
from gradc.compiler.ir.numpy_math import joined_type
from gradc.compiler.ir.promotion import (
    AMBIGUOUS,
    Origin,
    always_strong,
    may_be_strong,
    promote,
)
from gradc.compiler.ir.types import (
    F32,
    I32,
    I64,
    ArrayType,
    ScalarType,
    TupleType,
    UnknownType,
    join,
    python_name,
)

__all__ = ["array_common_type", "common_type", "element_types", "numpy_scalars", "origins"]

#: Operations whose result is a Python scalar whatever their operands.
_PYTHON = (ops.Const, ops.Len, ops.ArrayAttr, ops.Not, ops.MathCall)
#: Operations whose result is one of their operands' kind (NumPy's if any is NumPy's).
_COMBINE = (ops.BinaryOp, ops.UnaryOp, ops.Cmp)
#: Operations whose result is one of their operands (either kind may flow through).
_MERGE = (ops.Phi, ops.Select)


def _merge(values: list[Origin | None]) -> Origin | None:
    known = {v for v in values if v is not None}
    if not known:
        return None
    return known.pop() if len(known) == 1 else Origin.EITHER


def _combine(values: list[Origin | None]) -> Origin | None:
    if Origin.NUMPY in values:
        return Origin.NUMPY
    if Origin.EITHER in values:
        return Origin.EITHER
    return None if None in values else Origin.PYTHON


def _rule(inst: Instruction, now: dict[Value, Origin]) -> Origin | None:
    """The origin of ``inst``'s result from its operands' origins so far (None: not
    known yet, the bottom of the lattice None < PYTHON, NUMPY < EITHER)."""
    if isinstance(inst, _PYTHON):
        return Origin.PYTHON
    operands = inst.operands()
    if isinstance(inst, ops.Cast):
        return Origin.NUMPY if inst.numpy else Origin.PYTHON  # np.float64(x) or float(x)
    if isinstance(inst, _MERGE):
        arms = operands[1:] if isinstance(inst, ops.Select) else operands
        return _merge([now.get(v) for v in arms])
    if isinstance(inst, ops.InPlace):  # a scalar variable after 's += v' is 's + v'
        return now.get(inst.value)
    if isinstance(inst, ops.TupleGet) and isinstance(inst.tuple, ops.MakeTuple):
        return now.get(inst.tuple.operands()[inst.index])
    if isinstance(inst, ops.GetItem) and isinstance(inst.value.type, TupleType | UnknownType):
        return Origin.EITHER
    if isinstance(inst, _COMBINE) and not any(isinstance(v.type, ArrayType) for v in operands):
        return _combine([now.get(v) for v in operands])
    if isinstance(inst, ops.NumpyCall) or any(isinstance(v.type, ArrayType) for v in operands):
        return Origin.NUMPY
    return Origin.EITHER


def origins(fn: Function) -> dict[Value, Origin]:
    """The origin of every value of ``fn`` (the module docstring): a fixpoint over the
    function, for loops carry values around (``s = 0.0; s += a[i]`` is NumPy's)."""
    now: dict[Value, Origin] = {}
    for p in fn.params:  # an f32 is NumPy's whatever it came from
        now[p] = Origin.NUMPY if p.type == F32 else Origin.PYTHON if fn.exported else Origin.EITHER
    changed = True
    while changed:
        changed = False
        for inst in fn.instructions():
            new = _rule(inst, now)
            if new is not None and now.get(inst) is not new:
                now[inst] = new
                changed = True
    return now


def ambiguity(types: list[ScalarType], arrays: int = 0) -> str:
    """The compile error of a promotion that depends on an operand's unknown origin."""
    strong = joined_type(types[:arrays] or [t for t in types if may_be_strong(t)])
    wide = next(t for t in types[arrays:] if join(strong, t) != strong)
    both = join(strong, wide)
    assert both is not None
    return (
        f"NumPy's result type depends on whether the {python_name(wide)} operand is a "
        f"Python scalar ({python_name(strong)}, NEP 50) or a NumPy scalar "
        f"({python_name(both)}), which gradc cannot tell here (a value of "
        "both kinds, a helper's parameter, a call's result): convert it, with float(x) "
        "or np.float64(x)"
    )


def element_types(values: list[Value]) -> list[ScalarType]:
    """The scalar type of each value (an array's dtype)."""
    types = [v.type.dtype if isinstance(v.type, ArrayType) else v.type for v in values]
    assert all(isinstance(t, ScalarType) for t in types), types
    return types  # type: ignore[return-value]


def common_type(fn: Function, values: list[Value], arrays: int = 0) -> ScalarType | str | None:
    """NumPy's common type of ``values`` (typed scalars; the first ``arrays`` arrays) in
    ``fn`` (:func:`decide`)."""
    memo: dict[Value, Origin] = {}

    def origin_of(value: Value) -> Origin:
        if not memo:
            memo.update(origins(fn))
        return memo.get(value, Origin.EITHER)

    common = decide(values, origin_of, arrays)
    return ambiguity(element_types(values), arrays) if common == AMBIGUOUS else common


def decide(
    values: list[Value], origin_of: Callable[[Value], Origin], arrays: int = 0
) -> ScalarType | str | None:
    """NumPy's common type of ``values`` (typed; the first ``arrays`` arrays) whose
    origins ``origin_of`` gives (compiler/ir/promotion.py); None where Python's rules
    apply: all are Python scalars, or a non-constant Python int meets a NumPy int32
    (NumPy converts it to int32, raising OverflowError if it does not fit: gradc computes
    in int64, Python's way); :data:`~.promotion.AMBIGUOUS` where it depends on an
    operand's unknown origin; or the compile error's message."""
    types = element_types(values)
    result = promote(types, lambda k: origin_of(values[k]), arrays)
    if result == AMBIGUOUS:
        return AMBIGUOUS
    python = [origin_of(v) is Origin.PYTHON and not always_strong(t) for v, t in zip(values, types)]
    if not arrays and all(python):
        return None
    if result == I32:
        ints = [v for v, t in zip(values, types, strict=True) if t == I64]
        for v in ints:
            if isinstance(v, ops.Const) and not -(2**31) <= int(v.value) < 2**31:
                return f"Python integer {v.value} out of bounds for int32 (NumPy's OverflowError)"
        if not all(isinstance(v, ops.Const) for v in ints):
            return None
    return result


def numpy_scalars(
    fn: Function, inst: Instruction, error: Callable[[str, Instruction], Exception]
) -> ScalarType | None:
    """NEP 50's common type of ``inst``'s scalar operands (typed) where one may be a
    NumPy ``f32``/``i32``; None where Python's rules apply: all are Python's, or one may
    be either (``s = 0.0; s += x32[i]``: NumPy's ``s`` is a float32 after the first
    addition, which a static type cannot follow; its join, float64, as Numba's).

    Raises:
        CompileError: ``error(message, inst)``: a Python int out of int32's range.
    """
    values = inst.operands()
    if not any(may_be_strong(t) for t in element_types(values)):
        return None
    memo = origins(fn)
    common = decide(values, lambda v: memo.get(v, Origin.EITHER))
    if common == AMBIGUOUS:
        return None
    if isinstance(common, str):
        raise error(common, inst)
    return common


def array_common_type(fn: Function, values: list[Value], arrays: int) -> ScalarType | str:
    """:func:`common_type` of operands the first ``arrays`` of which are arrays; with none
    (``np.where(mask, 1, 2.0)``: the condition does not count) and Python scalars alone,
    their join, as NumPy's ``result_type`` of Python scalars (bool < int64 < float64)."""
    common = common_type(fn, values, arrays)
    if common is None:
        assert not arrays  # an array is NumPy's
        common = element_types(values)[0]
        for t in element_types(values)[1:]:
            common = join(common, t)  # type: ignore[assignment]
    return common
