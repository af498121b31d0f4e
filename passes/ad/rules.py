"""Derivative rules, one JVP rule and one VJP (adjoint) rule per operation.

A JVP rule maps the tangents of an instruction's operands to the tangent of its result;
a VJP rule maps the adjoint ``ā`` of its result to contributions to its operands'
adjoints. Both are built with a :class:`~gradc.compiler.ir.builder.Builder` positioned
where the derivative code goes. Identities used (``r`` is the result):

==========  ===========================================  =============================
operation   JVP: ṙ =                                     VJP: ā_x +=
==========  ===========================================  =============================
add, sub    ȧ ± ḃ                                         ā, ±ā
mul         ȧ·b + a·ḃ                                     ā·b, ā·a
div         (ȧ − r·ḃ) / b                                 ā/b, −ā·r/b
neg         −ȧ                                            −ā
abs         sign(a)·ȧ (0 at 0, as JAX)                    sign(a)·ā
min, max    the tangent of the operand picked              ā to the operand picked
pow         b·a^(b−1)·ȧ + r·ln(a)·ḃ                       ā·b·a^(b−1), ā·r·ln(a)
            (b·a^(b−1) is 0 where b = 0 or ±inf; r·ln a is 0 where r = 0, its limit)
sin         cos(a)·ȧ                                      (the same factor times ā)
cos         −sin(a)·ȧ
tan         (1 + r²)·ȧ
asin, acos  ±ȧ / √(1 − a²)
atan        ȧ / (1 + a²)
sinh, cosh  cosh(a)·ȧ, sinh(a)·ȧ
tanh        (1 − r²)·ȧ
exp, expm1  r·ȧ, (r + 1)·ȧ
log         ȧ / a;  log1p: ȧ/(1 + a); log2: ȧ/(a·ln 2); log10: ȧ/(a·ln 10)
sqrt        ȧ / (2r)
erf, erfc   ±(2/√π)·exp(−a²)·ȧ
atan2(y,x)  (x·ẏ − y·ẋ) / (x² + y²)   (0 where x² + y² is inf, its limit, or 0)
hypot       (a·ȧ + b·ḃ) / r   (0 at the origin, as abs'(0))
copysign    sign(a)·sign(b)·ȧ  (0 for b)
fabs        sign(a)·ȧ
gamma       r·ψ(a)·ȧ    (ψ = Γ'/Γ, the digamma function, A&S 6.3.1)
lgamma      ψ(a)·ȧ      (compiler/ir/special.py)
floor, ceil, trunc, float //: 0 (piecewise constant)
==========  ===========================================  =============================

``min``/``max``/``abs`` follow NumPy/JAX: the derivative of the branch Python picks (at a
tie, ``min(a, b)`` and ``max(a, b)`` pick ``a``).

Derivative code never raises: divisions are IEEE (``fdiv``, ``sqrt'(0)`` is +inf rather
than a ZeroDivisionError) and ``math`` calls use their non-checking twins
(``ieee_log(0.0)`` is -inf, :data:`~gradc.compiler.ir.ops.IEEE_MATH`), and the callers
place it after the primal instruction, so a derivative export raises the primal's
exceptions only, in the primal's order. A tangent or adjoint times a partial is a
*strong zero* (:meth:`_Ops.scale`): 0 where the tangent or adjoint or a (non-operand)
partial is 0, so an unselected value never turns a gradient into NaN through ``0·inf``.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from gradc.compiler.ir import ops
from gradc.compiler.ir.builder import Builder
from gradc.compiler.ir.core import Instruction, Value
from gradc.compiler.ir.types import ScalarType

Tangent = Callable[[Value], Value | None]
"""The tangent of a primal value, or None when it is inactive (a zero tangent)."""


class _Ops:
    """Float arithmetic on a builder, skipping work for ``None`` (zero) operands."""

    def __init__(self, b: Builder) -> None:
        self.b = b

    def c(self, x: float, like: Value) -> Value:
        t = like.type
        assert isinstance(t, ScalarType)
        return self.b.const(float(x), t)

    def add(self, x: Value | None, y: Value | None) -> Value | None:
        if x is None:
            return y
        if y is None:
            return x
        return self.b.add(x, y)

    def sub(self, x: Value | None, y: Value | None) -> Value | None:
        if y is None:
            return x
        if x is None:
            return self.neg(y)
        return self.b.sub(x, y)

    def mul(self, x: Value | None, y: Value | None) -> Value | None:
        if x is None or y is None:
            return None
        return self.b.mul(x, y)

    def div(self, x: Value | None, y: Value) -> Value | None:
        if x is None:
            return None
        return self.b.binary(ops.FDiv, x, y)

    def neg(self, x: Value | None) -> Value | None:
        return None if x is None else self.b.unary(ops.Neg, x)

    def math(self, fn: str, *args: Value) -> Value:
        """``math.fn(*args)`` without Python's checks (``ieee_log(0.0)`` is -inf): a
        partial is evaluated where the primal was, and must not raise where it did not."""
        if fn in ops.IEEE_MATH:
            fn = f"ieee_{fn}"
        return self.b.math(fn, *args)

    def scale(self, t: Value, p: Value, active_p: bool = False) -> Value:
        """``t·p`` for a tangent or adjoint ``t`` and a partial ``p``, with a *strong
        zero* (as Enzyme's option; JAX's symbolic zeros do it statically): 0 where ``t``
        or ``p`` is 0, even if the other is ±inf or NaN. So a value whose tangent or
        adjoint is 0 at run time (the operand ``max`` did not pick) adds nothing through
        ``0·sqrt'(0)`` or ``0·(-inf)``, and a path through a factor that is 0 (``0.0 *
        y``, ``float(int(y)) * y`` near 0) carries no infinite or NaN derivative.

        No check for a finite constant ``p``, nor where ``active_p`` says ``p`` is an
        active value of the function (the partials of ``a * b`` are its operands): an
        infinite active value means the function is at ±inf or NaN near there, and its
        derivatives are not finite anyway; the check would cost 14% (one-sided) to 30%
        (gradient) and 20% to 70% (JVP) of a product-bound derivative (a 1000×1000
        mat-vec, measured). So reverse mode of ``sqrt(x * x)`` at 0 is NaN, as JAX's."""
        zero = self.c(0.0, t)
        if isinstance(p, ops.Const):
            if float(p.value) == 0.0:
                return zero
            if math.isfinite(float(p.value)):
                return self.b.mul(t, p)  # ±inf·p, NaN·p and 0·p are what they should be
        elif active_p:
            return self.b.mul(t, p)
        product = self.b.select(self.b.cmp("eq", p, zero), zero, self.b.mul(t, p))
        return self.b.select(self.b.cmp("eq", t, zero), zero, product)

    def sign(self, x: Value) -> Value:
        """-1, 0 or 1 as a float of ``x``'s type (0 for 0 and NaN)."""
        zero = self.c(0.0, x)
        pos = self.b.cmp("gt", x, zero)
        neg = self.b.cmp("lt", x, zero)
        return self.b.select(pos, self.c(1.0, x), self.b.select(neg, self.c(-1.0, x), zero))

    def select(self, cond: Value, x: Value | None, y: Value | None, like: Value) -> Value | None:
        if x is None and y is None:
            return None
        zero = self.c(0.0, like)
        return self.b.select(cond, x if x is not None else zero, y if y is not None else zero)


# -- local derivatives of unary math functions: f'(a) given a and r = f(a) ----------


def _math_derivative(o: _Ops, fn: str, a: Value, r: Value) -> Value | None:
    """f'(a) for a one-argument math function, or None for a zero derivative."""
    one = o.c(1.0, a)
    match fn:
        case "sin":
            return o.math("cos", a)
        case "cos":
            return o.neg(o.math("sin", a))
        case "tan":
            return o.add(one, o.mul(r, r))
        case "asin":
            return o.div(one, o.math("sqrt", o.b.sub(one, o.b.mul(a, a))))
        case "acos":
            return o.neg(o.div(one, o.math("sqrt", o.b.sub(one, o.b.mul(a, a)))))
        case "atan":
            return o.div(one, o.b.add(one, o.b.mul(a, a)))
        case "sinh":
            return o.math("cosh", a)
        case "cosh":
            return o.math("sinh", a)
        case "tanh":
            return o.b.sub(one, o.b.mul(r, r))
        case "exp":
            return r
        case "expm1":
            return o.b.add(r, one)
        case "log":
            return o.div(one, a)
        case "log1p":
            return o.div(one, o.b.add(one, a))
        case "log2":
            return o.div(one, o.b.mul(a, o.c(math.log(2.0), a)))
        case "log10":
            return o.div(one, o.b.mul(a, o.c(math.log(10.0), a)))
        case "sqrt":
            return o.div(one, o.b.mul(o.c(2.0, a), r))
        case "fabs":
            return o.sign(a)
        case "erf" | "erfc":
            k = o.c((-1.0 if fn == "erfc" else 1.0) * 2.0 / math.sqrt(math.pi), a)
            return o.b.mul(k, o.math("exp", o.b.unary(ops.Neg, o.b.mul(a, a))))
        case "lgamma":
            return o.math("digamma", a)
        case "gamma":
            return o.b.mul(r, o.math("digamma", a))
        case "floor" | "ceil" | "trunc":
            return None
    raise NotDifferentiable(f"math.{fn}")


class NotDifferentiable(Exception):
    """No derivative rule exists for this construct (the message names it)."""


def _pow_partials(
    o: _Ops, a: Value, b: Value, r: Value, need_b: bool
) -> tuple[Value, Value | None]:
    """(∂r/∂a, ∂r/∂b) of r = a**b, with IEEE pow and log (never raising).

    ∂r/∂a = b·a^(b−1), and 0 where b == 0 (r = 1 for every a, while a^(−1) is inf at
    a = 0) or b is ±inf (a^b is then 0, 1 or inf: constant in a but at |a| = 1, while
    b·a^(b−1) is ±inf·0). ∂r/∂b = r·ln a, and 0 where r == 0: the limit of r·ln a as r → 0 (0^b for
    b > 0 is 0 for every such b; also inf^b for b < 0 and underflow), where ln a alone
    would be ∓inf. A negative base has no ∂r/∂b (NaN: a^b is real only at integer b).
    """
    one = o.c(1.0, a)
    zero = o.c(0.0, a)
    da = o.b.mul(b, o.b.math("ieee_pow", a, o.b.sub(b, one)))
    da = o.b.select(o.b.cmp("eq", b, zero), zero, da)
    da = o.b.select(o.b.math("isinf", b), zero, da)
    db = None
    if need_b:
        db = o.b.select(o.b.cmp("eq", r, zero), zero, o.b.mul(r, o.math("log", a)))
    return da, db


def partials(
    o: _Ops,
    inst: Instruction,
    active: Callable[[Value], bool],
    result: Value | None = None,
) -> list[tuple[Value, Value | None]]:
    """``[(operand, ∂result/∂operand)]`` for the operands of a smooth operation.

    ``result`` is the value of ``inst`` where the rule is built (``inst`` itself by
    default; the reverse sweep passes the value it popped off the tape). ``None`` as a
    partial means zero. Raises :class:`NotDifferentiable` for operations without a rule.
    """
    r: Value = inst if result is None else result
    match inst:
        case ops.Add(lhs=a, rhs=b):
            return [(a, o.c(1.0, r)), (b, o.c(1.0, r))]
        case ops.Sub(lhs=a, rhs=b):
            return [(a, o.c(1.0, r)), (b, o.c(-1.0, r))]
        case ops.Mul(lhs=a, rhs=b):
            return [(a, b), (b, a)]
        case ops.Div(lhs=a, rhs=b) | ops.FDiv(lhs=a, rhs=b):
            inv = o.div(o.c(1.0, r), b)
            return [(a, inv), (b, o.neg(o.mul(r, inv)))]
        case ops.Neg(operand=a):
            return [(a, o.c(-1.0, r))]
        case ops.Abs(operand=a):
            return [(a, o.sign(a))]
        case ops.Pow(lhs=a, rhs=b):
            da, db = _pow_partials(o, a, b, r, active(b))
            return [(a, da), (b, db)]
        case ops.MathCall(fn="pow" | "ieee_pow", args=(a, b)):
            da, db = _pow_partials(o, a, b, r, active(b))
            return [(a, da), (b, db)]
        case ops.MathCall(fn="atan2", args=(y, x)):
            # 0 where x² + y² is inf (an infinite argument: atan2 is constant there, its
            # partials ~1/|x| → 0), not inf/inf; and at the origin (a jump), not 0/0
            den = o.b.add(o.b.mul(x, x), o.b.mul(y, y))
            zero = o.c(0.0, r)
            dy = o.b.select(o.b.math("isinf", den), zero, o.b.binary(ops.FDiv, x, den))
            dy = o.b.select(o.b.cmp("eq", den, zero), zero, dy)
            dx = o.b.select(o.b.math("isinf", den), zero, o.b.binary(ops.FDiv, y, den))
            dx = o.b.select(o.b.cmp("eq", den, zero), zero, dx)
            return [(y, dy), (x, o.b.unary(ops.Neg, dx))]
        case ops.MathCall(fn="hypot", args=(a, b)):
            # at the origin (r == 0, a kink) 0, as abs'(0): not 0/0
            zero = o.c(0.0, r)
            at_origin = o.b.cmp("eq", r, zero)
            return [
                (a, o.b.select(at_origin, zero, o.b.binary(ops.FDiv, a, r))),
                (b, o.b.select(at_origin, zero, o.b.binary(ops.FDiv, b, r))),
            ]
        case ops.FloorDiv(lhs=a, rhs=b):  # piecewise constant
            return [(a, None), (b, None)]
        case ops.MathCall(fn="copysign", args=(a, b)):
            sa = o.math("copysign", o.c(1.0, a), a)
            sb = o.math("copysign", o.c(1.0, b), b)
            return [(a, o.b.mul(sa, sb)), (b, None)]
        case ops.MathCall(fn=fn, args=(a,)):
            return [(a, _math_derivative(o, fn, a, r))]
    raise NotDifferentiable(type(inst).OPNAME)


#: Unary math functions whose derivative is written with the result ``r`` only, and
#: those with no derivative; the others use their argument ``a`` (``_math_derivative``).
_RESULT_ONLY = frozenset({"tan", "tanh", "exp", "expm1", "sqrt"})
_CONSTANT = frozenset({"floor", "ceil", "trunc"})


def primal_needs(inst: Instruction, active: Callable[[Value], bool]) -> tuple[list[Value], bool]:
    """The forward values the adjoint rule of ``inst`` reads: ``(operands, result?)``.

    What the reverse sweep must have (taped or recomputed) to apply :func:`partials` or
    :func:`choice` to ``inst``; kept next to them so the two agree. Operations not listed
    get all their scalar operands and their result.
    """
    match inst:
        case ops.Add() | ops.Sub() | ops.Neg() | ops.Cast() | ops.MakeTuple() | ops.TupleGet():
            return [], False
        case ops.Mul(lhs=a, rhs=b):  # ā·b to a, ā·a to b
            return [x for x, partner in ((b, a), (a, b)) if active(partner)], False
        case ops.Div(rhs=b) | ops.FDiv(rhs=b):  # ā/b, −ā·r/b
            return [b], True
        case ops.Abs(operand=a):
            return [a], False
        case ops.Min(lhs=a, rhs=b) | ops.Max(lhs=a, rhs=b):
            return [a, b], False
        case ops.Select(cond=c):
            return [c], False
        case ops.Pow(lhs=a, rhs=b) | ops.MathCall(fn="pow" | "ieee_pow", args=(a, b)):
            return [a, b], active(b)
        case ops.MathCall(fn="atan2" | "copysign", args=(a, b)):
            return [a, b], False
        case ops.MathCall(fn="hypot", args=(a, b)):
            return [a, b], True
        case ops.FloorDiv():
            return [], False
        case ops.MathCall(fn=fn, args=(a,)) if fn in _RESULT_ONLY:
            return [], True
        case ops.MathCall(fn=fn, args=(a,)) if fn in _CONSTANT:
            return [], False
        case ops.MathCall(fn="gamma", args=(a,)):  # r·ψ(a)·ā
            return [a], True
        case ops.MathCall(args=(a,)):
            return [a], False
    return [v for v in inst.operands() if isinstance(v.type, ScalarType)], True


def choice(o: _Ops, inst: Instruction) -> tuple[Value, Value, Value] | None:
    """For ``min``/``max``/``select``: ``(cond, picked if cond, picked otherwise)``."""
    match inst:
        case ops.Min(lhs=a, rhs=b):
            return o.b.cmp("lt", b, a), b, a  # min(a, b) = b if b < a else a
        case ops.Max(lhs=a, rhs=b):
            return o.b.cmp("gt", b, a), b, a  # max(a, b) = b if b > a else a
        case ops.Select(cond=c, if_true=t, if_false=f):
            return c, t, f
    return None


def make_ops(b: Builder) -> _Ops:
    """The rule helpers bound to builder ``b``."""
    return _Ops(b)
