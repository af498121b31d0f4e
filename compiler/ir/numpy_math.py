"""NumPy's math functions on scalars (``np.sqrt(x)``, ``np.minimum(a, b)``): the one table
:data:`NUMPY_FUNCTIONS`, read by the front end (names, arities), by inference (result
types) and by materialisation (the typed operations a :class:`~.ops.NumpyCall` becomes).

Semantics are NumPy's ufunc loops on 0-d operands, not ``math``'s: no exception ever
(``np.sqrt(-1.0)`` is NaN, ``np.log(0.0)`` -inf, ``np.exp(1000.0)`` inf; NumPy only
warns), so the transcendental functions call the non-checking ``ieee_*`` twins
(:data:`~gradc.compiler.ir.ops.IEEE_MATH`). Result types follow NumPy's loop selection:

- ``float`` functions (``sqrt``, ``exp``, ...): ``f64`` for ``f64`` and integer operands,
  ``f32`` for ``f32`` ones: computed in ``f64`` and rounded (correctly rounded but for
  double rounding, so within 1 ulp of NumPy's own float32 loops; exact for ``sqrt``,
  ``fabs``, ``copysign``);
- ``same`` functions (``abs``, ``floor``, ``minimum``, ``square``, ``power``, ...): the
  operands' type (``np.abs`` of an int is an int, ``np.floor`` of an int the int itself;
  integer ``abs``/``square`` wrap as NumPy's), ``f32`` included (``floor``/``ceil``/
  ``trunc`` exact in ``f64``, ``power`` rounded from ``f64``, the others computed in
  ``f32``);
- predicates (``isnan``, ``isinf``, ``isfinite``, ``logical_and/or/xor/not``): ``bool``.

Not supported (a compile error naming the function and the operand type): ``float``
functions of ``bool`` operands only (NumPy computes them in ``float16``), and the
integer loops of ``power``, ``reciprocal`` and ``sign``/``square`` of bools (NumPy's
``int8`` results). Operands of different types promote as NumPy's, with NEP 50's weak
Python scalars (``np.minimum(np.float32(1), 2.0)`` is float32, with ``np.float64(2.0)``
float64): the common type is the caller's (compiler/ir/promotion.py), each operand is
converted to it first.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from enum import StrEnum

from gradc._dataclass import dataclass
from gradc.compiler.ir import ops
from gradc.compiler.ir.builder import Builder
from gradc.compiler.ir.core import Value
from gradc.compiler.ir.ops import MathName
from gradc.compiler.ir.types import F64, I1, ScalarType, join

Expand = Callable[[Builder, list[Value]], Value]
"""``(builder, operands) -> result``: the operands already converted to the computation
type (``f64`` for ``float`` functions, the result type for ``same`` ones)."""


class Kind(StrEnum):
    """How a function's result type follows from its operands' (the module docstring)."""

    FLOAT = "float"
    SAME = "same"
    PREDICATE = "predicate"


@dataclass(frozen=True)
class NumpyFn:
    """A NumPy function on scalars.

    Attributes:
        arity: number of operands.
        kind: the result type rule (:class:`Kind`).
        on_float: the typed operations on float operands.
        on_int: the same on integer (and, with ``bools``, bool) operands; None where
            NumPy's integer loop is not supported (the operands join to ``f64`` otherwise).
        bools: bool operands are supported (by ``on_int``, the result a bool as NumPy's).
        native: ``on_float`` is built of operations defined on every float type (computed
            in the operands' type), not of ``math`` calls (computed in ``f64``).
    """

    arity: int
    kind: Kind
    on_float: Expand
    on_int: Expand | None = None
    bools: bool = True
    native: bool = False


def _math(fn: MathName) -> Expand:
    return lambda b, args: b.math(fn, *args)


def _ieee(fn: MathName) -> Expand:
    """The non-checking twin of ``math.<fn>``."""
    return _math(MathName(f"ieee_{fn}"))


def _identity(b: Builder, args: list[Value]) -> Value:
    return args[0]


def _scaled(factor: float) -> Expand:
    return lambda b, args: b.mul(args[0], b.const(factor, F64))


def _square(b: Builder, args: list[Value]) -> Value:
    return b.mul(args[0], args[0])


def _reciprocal(b: Builder, args: list[Value]) -> Value:
    x = args[0]
    return b.binary(ops.FDiv, b.const(1.0, x.type), x)  # type: ignore[arg-type]


def _abs(b: Builder, args: list[Value]) -> Value:
    x = args[0]
    return x if x.type == I1 else b.unary(ops.Abs, x)


def _sign_float(b: Builder, args: list[Value]) -> Value:
    """NumPy's ``npy_sign``: 1, -1, 0 (``+0.0`` for ``-0.0``), NaN for NaN."""
    x = args[0]
    t = x.type
    assert isinstance(t, ScalarType)
    zero = b.const(0.0, t)
    signed = b.select(
        b.cmp("gt", x, zero),
        b.const(1.0, t),
        b.select(b.cmp("lt", x, zero), b.const(-1.0, t), zero),
    )
    return b.select(b.cmp("ne", x, x), x, signed)


def _sign_int(b: Builder, args: list[Value]) -> Value:
    x = args[0]
    t = x.type
    assert isinstance(t, ScalarType)
    zero = b.const(0, t)
    return b.select(
        b.cmp("gt", x, zero), b.const(1, t), b.select(b.cmp("lt", x, zero), b.const(-1, t), zero)
    )


def _extremum(pred: str, skip_nan: bool) -> Expand:
    """NumPy's ``minimum``/``maximum`` (``pred`` ``lt``/``gt``): NaN if either operand is
    NaN, ``a <pred> b ? a : b`` otherwise (``scalar_min_f`` in loops_minmax); ``fmin``/
    ``fmax`` (``skip_nan``): the other operand where one is NaN (C99 fmin)."""

    def expand(b: Builder, args: list[Value]) -> Value:
        a, c = args
        picked = b.select(b.cmp(pred, a, c), a, c)
        if skip_nan:
            return b.select(b.cmp("ne", c, c), a, picked)
        return b.select(b.cmp("ne", a, a), a, picked)

    return expand


def _logaddexp(b: Builder, args: list[Value]) -> Value:
    """NumPy's ``npy_logaddexp``: ``x + log1p(exp(y - x))`` for ``x >= y`` (else the two
    swapped), ``x`` where ``x == y`` is an infinity (NumPy's ``x + LOGE2``), NaN for a NaN
    operand. Each side of the ``x >= y`` choice is smooth and they agree at ``x == y``
    (log1p(1) is LOGE2 rounded), so the derivative there is NumPy's function's (1/2, 1/2)."""
    x, y = args
    first = b.cmp("ge", x, y)
    larger = b.select(first, x, y)
    gap = b.select(first, b.sub(y, x), b.sub(x, y))  # -|x - y|, linear on each side
    r = b.add(larger, b.math(MathName.IEEE_LOG1P, b.math(MathName.IEEE_EXP, gap)))
    same_infinity = b.binary(ops.BitAnd, b.cmp("eq", x, y), b.math(MathName.ISINF, x))
    return b.select(same_infinity, x, r)


def _int_extremum(cls: type[ops.BinaryOp]) -> Expand:
    return lambda b, args: b.binary(cls, args[0], args[1])


def _never(b: Builder, args: list[Value]) -> Value:
    return b.const(False, I1)


def _always(b: Builder, args: list[Value]) -> Value:
    return b.const(True, I1)


def _truth(b: Builder, x: Value) -> Value:
    """NumPy's truth of an element: ``x != 0`` (a NaN is true), a bool itself."""
    if x.type == I1:
        return x
    t = x.type
    assert isinstance(t, ScalarType)
    return b.cmp("ne", x, b.const(0.0 if t.is_float else 0, t))


def _logical(cls: type[ops.BinaryOp] | None) -> NumpyFn:
    """``logical_and``/``or``/``xor`` (``cls`` of the operands' truths) and ``logical_not``
    (None): NumPy's ``?``-result loops of every type, computed in the joined type."""

    def expand(b: Builder, args: list[Value]) -> Value:
        truths = [_truth(b, a) for a in args]
        if cls is None:
            return b.unary(ops.Not, truths[0])
        return b.binary(cls, truths[0], truths[1])

    return NumpyFn(1 if cls is None else 2, Kind.PREDICATE, expand, expand, True, native=True)


def _float(fn: Expand, arity: int = 1) -> NumpyFn:
    return NumpyFn(arity, Kind.FLOAT, fn)


def _same(on_float: Expand, on_int: Expand | None, arity: int = 1, bools: bool = True) -> NumpyFn:
    """A function computed by operations defined on every scalar type."""
    return NumpyFn(arity, Kind.SAME, on_float, on_int, bools=bools, native=True)


def _rounding(fn: MathName) -> NumpyFn:
    """``floor``/``ceil``/``trunc``: the integer itself; of ``f32``, exact in ``f64``."""
    return NumpyFn(1, Kind.SAME, _math(fn), _identity)


def _predicate(fn: MathName, on_int: Expand) -> NumpyFn:
    return NumpyFn(1, Kind.PREDICATE, _math(fn), on_int)


#: Every NumPy function supported on scalars, by its NumPy name.
NUMPY_FUNCTIONS: dict[str, NumpyFn] = {
    "exp": _float(_ieee(MathName.EXP)),
    "expm1": _float(_ieee(MathName.EXPM1)),
    "log": _float(_ieee(MathName.LOG)),
    "log1p": _float(_ieee(MathName.LOG1P)),
    "log2": _float(_ieee(MathName.LOG2)),
    "log10": _float(_ieee(MathName.LOG10)),
    "sqrt": _float(_ieee(MathName.SQRT)),
    "sin": _float(_ieee(MathName.SIN)),
    "cos": _float(_ieee(MathName.COS)),
    "tan": _float(_ieee(MathName.TAN)),
    "arcsin": _float(_ieee(MathName.ASIN)),
    "arccos": _float(_ieee(MathName.ACOS)),
    "arctan": _float(_ieee(MathName.ATAN)),
    "arcsinh": _float(_ieee(MathName.ASINH)),
    "arccosh": _float(_ieee(MathName.ACOSH)),
    "arctanh": _float(_ieee(MathName.ATANH)),
    # libm's cbrt (NumPy's AVX-512 loop, SVML's, may differ from it by a few ulp)
    "cbrt": _float(_ieee(MathName.CBRT)),
    "sinh": _float(_ieee(MathName.SINH)),
    "cosh": _float(_ieee(MathName.COSH)),
    "tanh": _float(_ieee(MathName.TANH)),
    "arctan2": _float(_math(MathName.ATAN2), arity=2),
    "hypot": _float(_math(MathName.HYPOT), arity=2),
    "logaddexp": _float(_logaddexp, arity=2),
    "copysign": _float(_math(MathName.COPYSIGN), arity=2),
    "fabs": _float(_math(MathName.FABS)),
    # of floats only: NumPy's integer power wraps and raises for negative exponents
    "power": NumpyFn(2, Kind.SAME, _math(MathName.IEEE_POW)),
    # npy_deg2rad/npy_rad2deg: x * (pi / 180), x * (180 / pi)
    "deg2rad": _float(_scaled(math.pi / 180.0)),
    "rad2deg": _float(_scaled(180.0 / math.pi)),
    "floor": _rounding(MathName.FLOOR),
    "ceil": _rounding(MathName.CEIL),
    "trunc": _rounding(MathName.TRUNC),
    # np.rint and np.round(x) (0 decimals: rint), round half to even; f32 exact in f64
    "rint": _rounding(MathName.RINT),
    "round": _rounding(MathName.RINT),
    # np.abs of an int wraps at the minimum (as ops.Abs), of a bool is the bool
    "abs": _same(_abs, _abs),
    "absolute": _same(_abs, _abs),
    "square": _same(_square, _square, bools=False),
    "reciprocal": _same(_reciprocal, None),
    "sign": _same(_sign_float, _sign_int, bools=False),
    "minimum": _same(_extremum("lt", False), _int_extremum(ops.Min), 2),
    "maximum": _same(_extremum("gt", False), _int_extremum(ops.Max), 2),
    "fmin": _same(_extremum("lt", True), _int_extremum(ops.Min), 2),
    "fmax": _same(_extremum("gt", True), _int_extremum(ops.Max), 2),
    "isnan": _predicate(MathName.ISNAN, _never),
    "isinf": _predicate(MathName.ISINF, _never),
    "isfinite": _predicate(MathName.ISFINITE, _always),
    "logical_and": _logical(ops.BitAnd),
    "logical_or": _logical(ops.BitOr),
    "logical_xor": _logical(ops.BitXor),
    "logical_not": _logical(None),
}

#: NumPy's constants (``np.pi``).
NUMPY_CONSTANTS: dict[str, float] = {"pi": math.pi, "e": math.e, "inf": math.inf, "nan": math.nan}


def joined_type(operands: list[ScalarType]) -> ScalarType:
    """NumPy's promotion of the operands' types (:func:`~.types.join`: ``i64`` and
    ``f32`` give ``f64``, as NumPy's ``int64``/``float32``)."""
    acc: ScalarType = operands[0]
    for t in operands[1:]:
        j = join(acc, t)
        assert isinstance(j, ScalarType)
        acc = j
    return acc


def result_type(
    name: str, operands: list[ScalarType], common: ScalarType | None = None
) -> ScalarType | str:
    """The result type of ``np.<name>`` on operands of these types whose common type
    (NEP 50's, compiler/ir/promotion.py; their join when not given) is ``common``, or
    why it is not supported (the module docstring)."""
    fn = NUMPY_FUNCTIONS[name]
    joined = joined_type(operands) if common is None else common
    if joined == I1 and not fn.bools:
        return f"np.{name}() of bool is not supported"
    if fn.kind is Kind.PREDICATE:
        return I1
    if joined.is_float:
        return joined
    if fn.kind is Kind.FLOAT:
        if joined == I1:
            return f"np.{name}() of bool is not supported (NumPy computes it in float16)"
        return F64
    if fn.on_int is None:
        return f"np.{name}() of {_NUMPY_NAMES[joined.name]} is not supported (only of floats)"
    return joined


def expand(
    b: Builder, name: str, args: list[Value], result: ScalarType, common: ScalarType | None = None
) -> Value:
    """The typed operations of ``np.<name>(*args)`` whose result type is ``result``
    (:func:`result_type`), at the builder: the operands converted to their common type
    (``common``, NEP 50's; their join when not given) as NumPy's loop does, then to the
    computation's (``f64`` for the ``math`` functions: an ``f32`` result is the ``f64``
    one rounded, within an ulp of NumPy's float32 loop, tests/codegen/test_float32_math.py)."""
    fn = NUMPY_FUNCTIONS[name]
    joined = joined_type([a.type for a in args]) if common is None else common  # type: ignore[misc]
    args = [b.cast(a, joined) for a in args]
    if not joined.is_float and fn.on_int is not None:
        return fn.on_int(b, args)
    compute = joined if fn.native else F64
    value = fn.on_float(b, [b.cast(a, compute) for a in args])
    return b.cast(value, result)


_NUMPY_NAMES = {"f64": "float64", "f32": "float32", "i64": "int64", "i32": "int32", "i1": "bool"}
