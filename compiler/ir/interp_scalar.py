"""Interpreter rules of the scalar operations: constants, casts, tuples, arithmetic,
comparisons and ``math`` calls (semantics: the interpreter's module docstring)."""

from __future__ import annotations

import math
import operator
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from gradc.compiler.ir import ops
from gradc.compiler.ir.core import Instruction
from gradc.compiler.ir.interp_values import (
    MESSAGES,
    RULES,
    InterpreterError,
    Rule,
    int_to_f32,
    normalize,
    scalar_type,
    wrap_int,
)
from gradc.compiler.ir.special import digamma
from gradc.compiler.ir.types import ArrayType

if TYPE_CHECKING:
    from gradc.compiler.ir.interp import Machine


@RULES.register(ops.Const)
def _const(m: Machine, inst: Instruction, vals: list[object]) -> object:
    assert isinstance(inst, ops.Const)
    t = scalar_type(inst)
    v = inst.value
    if t.is_float:
        return int_to_f32(v) if isinstance(v, int) and t.bits == 32 else normalize(float(v), t)
    if t.is_bool:
        return bool(v)
    if not isinstance(v, int):
        raise InterpreterError(f"const {v!r} is not an int for {t}")
    return wrap_int(int(v), t.bits)


@RULES.register(ops.Cast)
def _cast(m: Machine, inst: Instruction, vals: list[object]) -> object:
    (x,) = vals
    if isinstance(inst.type, ArrayType):
        return x  # a layout relabel: the same array
    to = scalar_type(inst)
    if to.is_bool:
        return x != 0
    if isinstance(x, bool | int) and not isinstance(x, float):
        if to.is_float:
            return int_to_f32(int(x)) if to.bits == 32 else float(x)
        return wrap_int(int(x), to.bits)
    assert isinstance(x, float)
    if to.is_float:
        return normalize(x, to)
    if math.isnan(x):
        raise ValueError(MESSAGES["cast_nan"])
    if math.isinf(x):
        raise OverflowError(MESSAGES["cast_inf"])
    n = int(x)
    if wrap_int(n, to.bits) != n:
        raise OverflowError(MESSAGES["cast_range"])
    return n


@RULES.register(ops.MakeTuple)
def _make_tuple(m: Machine, inst: Instruction, vals: list[object]) -> object:
    return tuple(vals)


@RULES.register(ops.TupleGet)
def _tuple_get(m: Machine, inst: Instruction, vals: list[object]) -> object:
    assert isinstance(inst, ops.TupleGet)
    (tup,) = vals
    assert isinstance(tup, tuple)
    return tup[inst.index]


def _arith(fn: Callable[[object, object], object]) -> Rule:
    def rule(m: Machine, inst: Instruction, vals: list[object]) -> object:
        return normalize(fn(vals[0], vals[1]), scalar_type(inst))

    return rule


RULES.set([ops.Add], _arith(operator.add))
RULES.set([ops.Sub], _arith(operator.sub))
RULES.set([ops.Mul], _arith(operator.mul))


@RULES.register(ops.Div)
def _div(m: Machine, inst: Instruction, vals: list[object]) -> object:
    a, b = vals
    t = scalar_type(inst)
    if not t.is_float:
        raise InterpreterError(f"div on {t}: true division is defined on floats only")
    assert isinstance(a, float) and isinstance(b, float)
    if b == 0.0:
        assert isinstance(inst, ops.Div)
        raise ZeroDivisionError(MESSAGES["int_div_zero" if inst.of_ints() else "float_div_zero"])
    return normalize(a / b, t)


@RULES.register(ops.FDiv)
def _fdiv(m: Machine, inst: Instruction, vals: list[object]) -> object:
    a, b = vals
    t = scalar_type(inst)
    if not t.is_float:
        raise InterpreterError(f"fdiv on {t}: IEEE division is defined on floats only")
    assert isinstance(a, float) and isinstance(b, float)
    if b == 0.0:
        if a == 0.0 or math.isnan(a):
            return math.nan
        return math.copysign(math.inf, a) * math.copysign(1.0, b)
    return normalize(a / b, t)


@RULES.register(ops.FloorDiv)
def _floordiv(m: Machine, inst: Instruction, vals: list[object]) -> object:
    a, b = vals
    t = scalar_type(inst)
    assert isinstance(a, int | float) and isinstance(b, int | float)
    if b == 0:
        key = "float_floordiv_zero" if t.is_float else "int_floordiv_zero"
        raise ZeroDivisionError(MESSAGES[key])
    return normalize(a // b, t)


@RULES.register(ops.Mod)
def _mod(m: Machine, inst: Instruction, vals: list[object]) -> object:
    a, b = vals
    t = scalar_type(inst)
    assert isinstance(a, int | float) and isinstance(b, int | float)
    if b == 0:
        raise ZeroDivisionError(MESSAGES["float_mod_zero" if t.is_float else "int_mod_zero"])
    return normalize(a % b, t)


@RULES.register(ops.Pow)
def _pow(m: Machine, inst: Instruction, vals: list[object]) -> object:
    a, b = vals
    t = scalar_type(inst)
    if not t.is_float:
        assert isinstance(a, int) and isinstance(b, int) and isinstance(inst, ops.Pow)
        if b < 0 and inst.numpy:
            raise ValueError(MESSAGES["numpy_int_pow_negative"])  # as NumPy, 0 ** -n too
        if b < 0 and a == 0:
            raise ZeroDivisionError(MESSAGES["float_pow_zero_negative"])  # as CPython
        if b < 0:
            raise ValueError(MESSAGES["int_pow_negative"])
        bits = 1 if t.is_bool else t.bits
        return normalize(pow(a, b, 1 << bits), t)
    assert isinstance(a, float) and isinstance(b, float)
    try:
        r = a**b
    except ZeroDivisionError:
        raise ZeroDivisionError(MESSAGES["float_pow_zero_negative"]) from None
    except OverflowError:
        raise OverflowError(MESSAGES["float_pow_overflow"]) from None
    if isinstance(r, complex):
        raise ValueError(MESSAGES["float_pow_fractional"])
    result = normalize(float(r), t)
    assert isinstance(result, float)
    if math.isinf(result) and math.isfinite(a) and math.isfinite(b):
        raise OverflowError(MESSAGES["float_pow_overflow"])  # binary32 overflow
    return result


@RULES.register(ops.Min)
def _min(m: Machine, inst: Instruction, vals: list[object]) -> object:
    a, b = vals
    return b if b < a else a  # type: ignore[operator]


@RULES.register(ops.Max)
def _max(m: Machine, inst: Instruction, vals: list[object]) -> object:
    a, b = vals
    return b if b > a else a  # type: ignore[operator]


RULES.set([ops.BitAnd], _arith(operator.and_))
RULES.set([ops.BitOr], _arith(operator.or_))
RULES.set([ops.BitXor], _arith(operator.xor))


def _shift_count(inst: Instruction, vals: list[object]) -> tuple[int, int, int]:
    """``(x, n, bits)`` of ``x << n`` / ``x >> n``; ValueError for ``n < 0`` (CPython's)."""
    x, n = vals
    assert isinstance(x, int) and isinstance(n, int)
    if n < 0:
        raise ValueError(MESSAGES["negative_shift"])
    return x, n, scalar_type(inst).bits


@RULES.register(ops.LShift)
def _lshift(m: Machine, inst: Instruction, vals: list[object]) -> object:
    x, n, bits = _shift_count(inst, vals)
    return 0 if n >= bits else wrap_int(x << n, bits)  # every bit shifted out: 0


@RULES.register(ops.RShift)
def _rshift(m: Machine, inst: Instruction, vals: list[object]) -> object:
    x, n, bits = _shift_count(inst, vals)
    return x >> min(n, bits)  # Python's >> of a value in range: 0 or -1 past the width


@RULES.register(ops.Neg)
def _neg(m: Machine, inst: Instruction, vals: list[object]) -> object:
    (x,) = vals
    assert isinstance(x, int | float)
    return normalize(-x, scalar_type(inst))


@RULES.register(ops.Abs)
def _abs(m: Machine, inst: Instruction, vals: list[object]) -> object:
    (x,) = vals
    assert isinstance(x, int | float)
    return normalize(abs(x), scalar_type(inst))


@RULES.register(ops.Invert)
def _invert(m: Machine, inst: Instruction, vals: list[object]) -> object:
    (x,) = vals
    assert isinstance(x, int)
    return normalize(~x, scalar_type(inst))


@RULES.register(ops.Not)
def _not(m: Machine, inst: Instruction, vals: list[object]) -> object:
    return not vals[0]


_CMP: dict[str, Callable[[Any, Any], Any]] = {
    "eq": operator.eq,
    "ne": operator.ne,
    "lt": operator.lt,
    "le": operator.le,
    "gt": operator.gt,
    "ge": operator.ge,
}


@RULES.register(ops.Cmp)
def _cmp(m: Machine, inst: Instruction, vals: list[object]) -> object:
    assert isinstance(inst, ops.Cmp)
    fn = _CMP.get(inst.pred)
    if fn is None:
        raise InterpreterError(f"unknown cmp predicate {inst.pred!r}")
    return bool(fn(vals[0], vals[1]))


@RULES.register(ops.MathCall)
def _math(m: Machine, inst: Instruction, vals: list[object]) -> object:
    assert isinstance(inst, ops.MathCall)
    if inst.fn not in ops.MATH_FUNCTIONS:
        raise InterpreterError(f"unknown math function {inst.fn!r}")
    args = [float(v) for v in vals]  # type: ignore[arg-type]
    if inst.fn in ("floor", "ceil", "trunc"):
        (x,) = args
        if not math.isfinite(x):
            return x
        r = float(getattr(math, inst.fn)(x))
        return math.copysign(0.0, x) if r == 0.0 else r  # C keeps the sign of zero
    if inst.fn == "ieee_pow":
        return _ieee_pow(*args)
    if inst.fn.startswith("ieee_"):  # C's result (inf, NaN), no Python exception
        import numpy as np  # lazily: as libm, without Python's checks

        with np.errstate(all="ignore"):
            return float(getattr(np, inst.fn.removeprefix("ieee_"))(np.float64(args[0])))
    if inst.fn == "norm_sqrt":  # C's sqrt (NaN below 0), no Python exception
        return math.sqrt(args[0]) if not args[0] < 0.0 else math.nan
    if inst.fn == "digamma":
        return digamma(args[0])
    if inst.fn == "rint":  # round half to even, as C's rint
        x = args[0]
        return x if not math.isfinite(x) else math.copysign(float(round(x)), x)
    result = getattr(math, inst.fn)(*args)
    if ops.MATH_FUNCTIONS[inst.fn].returns_bool:
        return bool(result)
    return float(result)


def _ieee_pow(x: float, y: float) -> float:
    """C's ``pow`` (IEEE results, no Python exceptions), as ``ieee_pow`` computes it."""
    try:
        return math.pow(x, y)
    except ZeroDivisionError:
        return math.inf
    except ValueError:
        if x == 0.0 and y < 0.0:
            return math.copysign(math.inf, x) if float(y).is_integer() and y % 2 else math.inf
        return math.nan
    except OverflowError:
        negative = x < 0.0 and float(y).is_integer() and y % 2 == 1
        return -math.inf if negative else math.inf
