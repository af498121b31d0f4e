"""NumPy's ufuncs on one element: the scalar operation an :class:`~.ops.Elementwise`
applies, by NumPy's name (``add``, ``floor_divide``, ``exp``, ``where``, ...).

Each :class:`Ufunc` says which loop NumPy selects for a common operand type (the
*loop* rule: the result dtype, or why gradc does not support it) and the typed scalar
operations computing one element (the *expansion*). The expansions follow NumPy's inner
loops, not Python's operators: nothing raises (``x / 0.0`` is inf, integer ``x // 0`` and
``x % 0`` are 0, ``x << 70`` is 0; NumPy only warns), except integer ``power`` with a
negative exponent, NumPy's ValueError. Sources: numpy/_core/src/umath/loops*.c.src,
npy_math_internal.h.src (``npy_divmod``, ``npy_lshift``), ``number.c``
(``fast_scalar_power``).

The NumPy functions of :data:`~gradc.compiler.ir.numpy_math.NUMPY_FUNCTIONS` are ufuncs
too, with their scalar rules (same loops, same refusals).

The common operand type comes first (``promote``, by the caller: inference, which knows
NEP 50's weak Python scalars); an operand of another dtype is converted to it element by
element, except the condition of ``where`` (its first operand, converted to bool).
"""

from __future__ import annotations

from collections.abc import Callable

from gradc._dataclass import dataclass
from gradc.compiler.ir import numpy_math, ops
from gradc.compiler.ir.builder import Builder
from gradc.compiler.ir.core import Value
from gradc.compiler.ir.types import F64, I1, ScalarType

Loop = Callable[[ScalarType], "ScalarType | str"]
"""``common operand type -> result type``, or the reason NumPy's loop is not supported."""

Expansion = Callable[[Builder, list[Value], ScalarType], Value]
"""``(builder, elements converted to the common type, result type) -> result element``."""

#: NumPy's message for a negative integer exponent (``npy_ObjectPower``'s integer loop).
NEGATIVE_POWER = "Integers to negative integer powers are not allowed."


@dataclass(frozen=True)
class Ufunc:
    """One NumPy ufunc on elements.

    Attributes:
        name: NumPy's name (``np.<name>``).
        arity: number of operands.
        loop: the result type for a common operand type, or why it is not supported.
        expand: the scalar operations of one element.
        may_raise: the integer loop may raise (``power``): never fused into a
            consumer, so that its error comes where NumPy's does.
        condition_first: operand 0 is a condition (``where``), converted to bool and not
            part of the common type.
    """

    name: str
    arity: int
    loop: Loop
    expand: Expansion
    may_raise: bool = False
    condition_first: bool = False


def _no_bool(name: str, hint: str = "") -> Loop:
    """Any type but bool (NumPy's bool loop raises TypeError, or gives int8)."""

    def loop(t: ScalarType) -> ScalarType | str:
        if t == I1:
            return hint or f"np.{name}() of bool is not supported (NumPy's result is int8)"
        return t

    return loop


def _same(t: ScalarType) -> ScalarType | str:
    return t


def _predicate(t: ScalarType) -> ScalarType | str:
    return I1


def _ints_only(name: str, *, on_bool: bool = True) -> Loop:
    """Integers (and bools where ``on_bool``): NumPy has no float loop; its bool loop of
    the shifts gives int8, which gradc's arrays do not hold."""

    def loop(t: ScalarType) -> ScalarType | str:
        if t == I1 and not on_bool:
            return f"np.{name}() of bool is not supported (NumPy's result is int8)"
        if t.is_float:
            return (
                f"ufunc '{name}' not supported for the input types, and the inputs could not "
                "be safely coerced to any supported types according to the casting rule "
                "''safe'' (NumPy's TypeError)"
            )
        return t

    return loop


def _power_loop(t: ScalarType) -> ScalarType | str:
    if t == I1:
        return "np.power() of bool is not supported (NumPy's result is int8)"
    return t


def _true_divide_loop(t: ScalarType) -> ScalarType | str:
    return t if t.is_float else F64


# -- expansions -----------------------------------------------------------------------


def _binary(cls: type[ops.BinaryOp], on_bool: type[ops.BinaryOp] | None = None) -> Expansion:
    def expand(b: Builder, args: list[Value], result: ScalarType) -> Value:
        use = on_bool if on_bool is not None and args[0].type == I1 else cls
        return b.binary(use, args[0], args[1])

    return expand


def _true_divide(b: Builder, args: list[Value], result: ScalarType) -> Value:
    x, y = (b.cast(a, result) for a in args)
    return b.binary(ops.FDiv, x, y)


def _guarded(
    cls: type[ops.BinaryOp], float_zero: Callable[[Builder, Value, Value], Value]
) -> Expansion:
    """``//`` and ``%`` (NumPy's ``npy_divmod``: CPython's algorithm) where the divisor is
    not zero; at zero, ints give 0 and floats ``float_zero`` (``x / 0``, ``fmod(x, 0)``)."""

    def expand(b: Builder, args: list[Value], result: ScalarType) -> Value:
        x, y = args
        t = x.type
        assert isinstance(t, ScalarType)
        zero = b.const(0.0 if t.is_float else 0, t)
        is_zero = b.cmp("eq", y, zero)
        safe = b.select(is_zero, b.const(1.0 if t.is_float else 1, t), y)
        value = b.binary(cls, x, safe)
        at_zero = float_zero(b, x, y) if t.is_float else zero
        return b.select(is_zero, at_zero, value)

    return expand


def _fdiv(b: Builder, x: Value, y: Value) -> Value:
    return b.binary(ops.FDiv, x, y)


def _fmod_zero(b: Builder, x: Value, y: Value) -> Value:
    return b.const(float("nan"), x.type)  # type: ignore[arg-type]  # fmod(x, 0) is NaN


def _power(b: Builder, args: list[Value], result: ScalarType) -> Value:
    """Floats: C ``pow`` (no checks). Ints: NumPy's ValueError for a negative exponent,
    else exact by squaring, wrapping."""
    x, y = args
    t = x.type
    assert isinstance(t, ScalarType)
    if t.is_float:
        return b.cast(b.math(ops.MathName.IEEE_POW, b.cast(x, F64), b.cast(y, F64)), t)
    with b.if_then(b.cmp("lt", y, b.const(0, t)), "pow.negative"):
        b.raise_("ValueError", NEGATIVE_POWER)
    return b.binary(ops.Pow, x, y)


def _power_scalar(b: Builder, args: list[Value], result: ScalarType) -> Value:
    """``float array ** scalar`` (``fast_scalar_power``): ``np.square`` for 2,
    ``np.sqrt`` for 0.5, ``np.reciprocal`` for -1, else ``pow``."""
    x, y = args
    t = x.type
    assert isinstance(t, ScalarType) and t.is_float  # f64 or f32 (NumPy's for both)
    value = _power(b, args, result)
    for exponent, fn in ((-1.0, "reciprocal"), (0.5, "sqrt"), (2.0, "square")):
        fast = numpy_math.expand(b, fn, [x], t)
        value = b.select(b.cmp("eq", y, b.const(exponent, t)), fast, value)
    return value


def _shift(cls: type[ops.BinaryOp]) -> Expansion:
    """``npy_lshift``/``npy_rshift``: a count outside ``[0, 64)`` (as an unsigned
    number) gives 0, or -1 for ``>>`` of a negative number."""

    def expand(b: Builder, args: list[Value], result: ScalarType) -> Value:
        x, y = args
        t = x.type
        assert isinstance(t, ScalarType)
        zero: Value = b.const(0, t)
        in_range = b.binary(ops.BitAnd, b.cmp("ge", y, zero), b.cmp("lt", y, b.const(t.bits, t)))
        shifted = b.binary(cls, x, b.select(in_range, y, zero))
        if cls is ops.LShift:
            outside = zero
        else:
            outside = b.select(b.cmp("lt", x, zero), b.const(-1, t), zero)
        return b.select(in_range, shifted, outside)

    return expand


def _negative(b: Builder, args: list[Value], result: ScalarType) -> Value:
    return b.unary(ops.Neg, args[0])


def _invert(b: Builder, args: list[Value], result: ScalarType) -> Value:
    x = args[0]
    return b.unary(ops.Not if x.type == I1 else ops.Invert, x)


def _compare(pred: str) -> Expansion:
    def expand(b: Builder, args: list[Value], result: ScalarType) -> Value:
        return b.cmp(pred, args[0], args[1])

    return expand


def _where(b: Builder, args: list[Value], result: ScalarType) -> Value:
    return b.select(args[0], args[1], args[2])


def _clip(b: Builder, args: list[Value], result: ScalarType) -> Value:
    """``_NPY_CLIP``: ``min(max(x, lo), hi)`` where a NaN first operand wins (floats)."""
    x, lo, hi = args
    raised = _nan_first(b, "gt", x, lo)
    return _nan_first(b, "lt", raised, hi)


def _nan_first(b: Builder, pred: str, a: Value, c: Value) -> Value:
    picked = b.select(b.cmp(pred, a, c), a, c)
    t = a.type
    assert isinstance(t, ScalarType)
    return b.select(b.cmp("ne", a, a), a, picked) if t.is_float else picked


def _from_numpy_math(name: str) -> Ufunc:
    """A :data:`~.numpy_math.NUMPY_FUNCTIONS` entry as a ufunc."""
    fn = numpy_math.NUMPY_FUNCTIONS[name]

    def loop(t: ScalarType) -> ScalarType | str:
        return numpy_math.result_type(name, [t] * fn.arity)

    def expand(b: Builder, args: list[Value], result: ScalarType) -> Value:
        return numpy_math.expand(b, name, args, result)

    return Ufunc(name, fn.arity, loop, expand)


def _diff(b: Builder, args: list[Value], result: ScalarType) -> Value:
    """``np.diff``'s step: ``subtract``, of bools ``not_equal`` (NumPy's ``diff``)."""
    if result == I1:
        return b.cmp("ne", args[0], args[1])
    return b.binary(ops.Sub, args[0], args[1])


_BOOL_SUBTRACT = (
    "numpy boolean subtract, the `-` operator, is not supported, use the bitwise_xor, the "
    "`^` operator, or the logical_xor function instead (NumPy's TypeError)"
)
_BOOL_NEGATIVE = (
    "The numpy boolean negative, the `-` operator, is not supported, use the `~` operator "
    "or the logical_not function instead (NumPy's TypeError)"
)

_OPERATORS = (
    Ufunc("add", 2, _same, _binary(ops.Add, ops.BitOr)),
    Ufunc("subtract", 2, _no_bool("subtract", _BOOL_SUBTRACT), _binary(ops.Sub)),
    Ufunc("multiply", 2, _same, _binary(ops.Mul, ops.BitAnd)),
    Ufunc("true_divide", 2, _true_divide_loop, _true_divide),
    Ufunc("floor_divide", 2, _no_bool("floor_divide"), _guarded(ops.FloorDiv, _fdiv)),
    Ufunc("remainder", 2, _no_bool("remainder"), _guarded(ops.Mod, _fmod_zero)),
    Ufunc("power", 2, _power_loop, _power, may_raise=True),
    Ufunc("power_scalar", 2, _power_loop, _power_scalar),
    Ufunc("negative", 1, _no_bool("negative", _BOOL_NEGATIVE), _negative),
    Ufunc("bitwise_and", 2, _ints_only("bitwise_and"), _binary(ops.BitAnd)),
    Ufunc("bitwise_or", 2, _ints_only("bitwise_or"), _binary(ops.BitOr)),
    Ufunc("bitwise_xor", 2, _ints_only("bitwise_xor"), _binary(ops.BitXor)),
    Ufunc("left_shift", 2, _ints_only("left_shift", on_bool=False), _shift(ops.LShift)),
    Ufunc("right_shift", 2, _ints_only("right_shift", on_bool=False), _shift(ops.RShift)),
    Ufunc("invert", 1, _ints_only("invert"), _invert),
    Ufunc("equal", 2, _predicate, _compare("eq")),
    Ufunc("not_equal", 2, _predicate, _compare("ne")),
    Ufunc("less", 2, _predicate, _compare("lt")),
    Ufunc("less_equal", 2, _predicate, _compare("le")),
    Ufunc("greater", 2, _predicate, _compare("gt")),
    Ufunc("greater_equal", 2, _predicate, _compare("ge")),
    Ufunc("where", 3, _same, _where, condition_first=True),
    Ufunc("clip", 3, _same, _clip),
    Ufunc("_diff", 2, _same, _diff),  # np.diff (compiler/frontend/array_functions.py)
)

#: Every ufunc an elementwise operation may apply, by NumPy's name.
UFUNCS: dict[str, Ufunc] = {u.name: u for u in _OPERATORS} | {
    name: _from_numpy_math(name)
    for name in numpy_math.NUMPY_FUNCTIONS
    if name not in {u.name for u in _OPERATORS}  # power: the integer loop too
}


def common_type(name: str, operands: list[ScalarType]) -> ScalarType:
    """The common operand type of ufunc ``name`` over operand (element) types: their
    join (NumPy's promotion of strong types), leaving out a ``where`` condition."""
    u = UFUNCS[name]
    types = operands[1:] if u.condition_first else operands
    return numpy_math.joined_type(types)


def result_type(name: str, operands: list[ScalarType]) -> ScalarType | str:
    """The result element type of ufunc ``name`` over operand element types, or why
    gradc does not support NumPy's loop (a compile-time error message)."""
    u = UFUNCS[name]
    return u.loop(common_type(name, operands))


def expand_element(b: Builder, name: str, elements: list[Value], result: ScalarType) -> Value:
    """The scalar operations of ``np.<name>`` on one element of each operand (any scalar
    types; converted here to the common type, a ``where`` condition to bool), typed
    ``result``, at the builder."""
    u = UFUNCS[name]
    types = [e.type for e in elements]
    common = common_type(name, types)  # type: ignore[arg-type]
    args = [b.cast(e, common) for e in elements]
    if u.condition_first:
        args[0] = b.cast(elements[0], I1)
    return b.cast(u.expand(b, args, result), result)


__all__ = [
    "NEGATIVE_POWER",
    "UFUNCS",
    "Ufunc",
    "common_type",
    "expand_element",
    "result_type",
]
