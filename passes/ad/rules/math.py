"""Rules of the ``math`` functions (:class:`~gradc.compiler.ir.ops.MathCall`), one entry
per function in :data:`MATH_RULES`, each beside its identity (``a`` the argument, ``r``
the result; the JVP is ``f'(a)·ȧ``, the adjoint ``f'(a)·ā``):

==========  ================================  ==========================================
function    f'(a)                             source / note
==========  ================================  ==========================================
sin, cos    cos(a), −sin(a)
tan         1 + r²                            tan' = sec² = 1 + tan²
asin, acos  ±1 / √(1 − a²)
atan        1 / (1 + a²)
asinh       1 / √(a² + 1)
acosh       1 / √(a² − 1)
atanh       1 / (1 − a²)
cbrt        1 / (3r²)                         (∞ at 0, as sqrt's)
sinh, cosh  cosh(a), sinh(a)
tanh        1 − r²                            tanh' = sech² = 1 − tanh²
exp, expm1  r, r + 1
log         1/a; log1p: 1/(1 + a); log2: 1/(a·ln 2); log10: 1/(a·ln 10)
sqrt        1 / (2r)
fabs        sign(a) (0 at 0, as abs)
erf, erfc   ±(2/√π)·exp(−a²)                  A&S 7.1.19
gamma       r·ψ(a)                            ψ = Γ'/Γ, the digamma function, A&S 6.3.1
lgamma      ψ(a)                              (compiler/ir/special.py)
floor, ceil, trunc, rint: 0 (piecewise constant)
atan2(y,x)  ∂y: x/(x² + y²), ∂x: −y/(x² + y²)   0 where x² + y² is inf (its limit) or 0
hypot       ∂a: a/r, ∂b: b/r                  0 at the origin, as abs'(0)
copysign    ∂a: sign(a)·sign(b), ∂b: 0
fmod(x,y)   ∂x: 1, ∂y: −trunc(x/y)            fmod(x, y) = x − trunc(x/y)·y (C99 7.12.10.1),
                                              trunc constant between jumps (JAX's lax.rem);
                                              at a jump the piece holding fmod's value, as
                                              floor's 0
pow         as ``**`` (:mod:`.arith`)
==========  ================================  ==========================================

Derivative code never raises: partials call the non-checking twins of the ``math``
functions (``ieee_log(0.0)`` is -inf, :data:`~gradc.compiler.ir.ops.IEEE_MATH`;
:meth:`.algebra.RuleOps.math`). A function without an entry is not differentiable: a
compile-time error naming ``math.<name>``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from gradc.compiler.ir import ops
from gradc.compiler.ir.core import Instruction, Value
from gradc.compiler.ir.ops import CmpPred, MathName
from gradc.passes.ad.rules.algebra import RuleOps
from gradc.passes.ad.rules.arith import POW
from gradc.passes.ad.rules.base import (
    KEEP_NOTHING,
    Accumulate,
    Active,
    ForwardSweep,
    Keep,
    NotDifferentiable,
    Partials,
    ScalarRule,
    Smooth,
)
from gradc.passes.ad.rules.registry import AD_RULES

Derivative = Callable[[RuleOps, Value, Value, Value], Value | None]
"""``(ops, a, r, one) -> f'(a)`` of a one-argument function (None: zero); ``one`` is the
constant 1 of ``a``'s type."""

_A = Keep((0,))  # the adjoint reads the argument
_R = Keep(result=True)  # ... the result only


def unary(derivative: Derivative, keep: Keep) -> Smooth:
    """The rule of a one-argument function ``r = f(a)`` from ``f'(a)``."""

    def partials(o: RuleOps, inst: Instruction, active: Active, r: Value) -> Partials:
        (a,) = inst.operands()
        return [(a, derivative(o, a, r, o.c(1.0, a)))]

    return Smooth(partials, keep)


def _erf(sign: float) -> Derivative:
    def derivative(o: RuleOps, a: Value, r: Value, one: Value) -> Value:
        k = o.c(sign * 2.0 / math.sqrt(math.pi), a)
        return o.b.mul(k, o.math(MathName.EXP, o.b.unary(ops.Neg, o.b.mul(a, a))))

    return derivative


def _inverse_sqrt_1_minus_square(o: RuleOps, a: Value, one: Value) -> Value | None:
    """1 / √(1 − a²)."""
    return o.div(one, o.math(MathName.SQRT, o.b.sub(one, o.b.mul(a, a))))


def _norm_sqrt(o: RuleOps, a: Value, r: Value, one: Value) -> Value | None:
    """1 / (2r), and 0 where r == 0: ``norm_sqrt`` takes a sum of squares (np.std's
    variance, the 2-norm's Σx²), whose own derivative is 0 there; the norm is a cone with
    its apex there, not differentiable, and 0 is its subgradient (as abs'(0) = 0), and
    where the spread stays 0 (one element, equal copies) the derivative, not inf·0 = NaN."""
    zero = o.c(0.0, r)
    return o.b.select(o.b.cmp(CmpPred.EQ, r, zero), zero, o.b.binary(ops.FDiv, one, o.b.add(r, r)))


def _log_base(base: float) -> Derivative:
    def derivative(o: RuleOps, a: Value, r: Value, one: Value) -> Value | None:
        return o.div(one, o.b.mul(a, o.c(math.log(base), a)))

    return derivative


def _atan2(o: RuleOps, inst: Instruction, active: Active, r: Value) -> Partials:
    # 0 where x² + y² is inf (an infinite argument: atan2 is constant there, its
    # partials ~1/|x| → 0), not inf/inf; and at the origin (a jump), not 0/0
    y, x = inst.operands()
    den = o.b.add(o.b.mul(x, x), o.b.mul(y, y))
    zero = o.c(0.0, r)
    dy = o.b.select(o.b.math(MathName.ISINF, den), zero, o.b.binary(ops.FDiv, x, den))
    dy = o.b.select(o.b.cmp(CmpPred.EQ, den, zero), zero, dy)
    dx = o.b.select(o.b.math(MathName.ISINF, den), zero, o.b.binary(ops.FDiv, y, den))
    dx = o.b.select(o.b.cmp(CmpPred.EQ, den, zero), zero, dx)
    return [(y, dy), (x, o.b.unary(ops.Neg, dx))]


def _hypot(o: RuleOps, inst: Instruction, active: Active, r: Value) -> Partials:
    # at the origin (r == 0, a kink) 0, as abs'(0): not 0/0
    a, b = inst.operands()
    zero = o.c(0.0, r)
    at_origin = o.b.cmp(CmpPred.EQ, r, zero)
    return [
        (a, o.b.select(at_origin, zero, o.b.binary(ops.FDiv, a, r))),
        (b, o.b.select(at_origin, zero, o.b.binary(ops.FDiv, b, r))),
    ]


def _copysign(o: RuleOps, inst: Instruction, active: Active, r: Value) -> Partials:
    a, b = inst.operands()
    sa = o.math(MathName.COPYSIGN, o.c(1.0, a), a)
    sb = o.math(MathName.COPYSIGN, o.c(1.0, b), b)
    return [(a, o.b.mul(sa, sb)), (b, None)]


def _fmod(o: RuleOps, inst: Instruction, active: Active, r: Value) -> Partials:
    # x/y rounded: within an ulp of a jump the quotient may name the next piece
    x, y = inst.operands()
    dy = o.neg(o.math(MathName.TRUNC, o.b.binary(ops.FDiv, x, y))) if active(y) else None
    return [(x, o.c(1.0, x)), (y, dy)]


MATH_RULES: Mapping[MathName, ScalarRule] = {
    MathName.SIN: unary(lambda o, a, r, one: o.math(MathName.COS, a), _A),
    MathName.COS: unary(lambda o, a, r, one: o.neg(o.math(MathName.SIN, a)), _A),
    MathName.TAN: unary(lambda o, a, r, one: o.add(one, o.mul(r, r)), _R),
    MathName.ASIN: unary(lambda o, a, r, one: _inverse_sqrt_1_minus_square(o, a, one), _A),
    MathName.ACOS: unary(lambda o, a, r, one: o.neg(_inverse_sqrt_1_minus_square(o, a, one)), _A),
    MathName.ATAN: unary(lambda o, a, r, one: o.div(one, o.b.add(one, o.b.mul(a, a))), _A),
    MathName.ASINH: unary(
        lambda o, a, r, one: o.div(one, o.math(MathName.SQRT, o.b.add(o.b.mul(a, a), one))), _A
    ),
    MathName.ACOSH: unary(
        lambda o, a, r, one: o.div(one, o.math(MathName.SQRT, o.b.sub(o.b.mul(a, a), one))), _A
    ),
    MathName.ATANH: unary(lambda o, a, r, one: o.div(one, o.b.sub(one, o.b.mul(a, a))), _A),
    MathName.CBRT: unary(lambda o, a, r, one: o.div(one, o.b.mul(o.c(3.0, a), o.b.mul(r, r))), _R),
    MathName.SINH: unary(lambda o, a, r, one: o.math(MathName.COSH, a), _A),
    MathName.COSH: unary(lambda o, a, r, one: o.math(MathName.SINH, a), _A),
    MathName.TANH: unary(lambda o, a, r, one: o.b.sub(one, o.b.mul(r, r)), _R),
    MathName.EXP: unary(lambda o, a, r, one: r, _R),
    MathName.EXPM1: unary(lambda o, a, r, one: o.b.add(r, one), _R),
    MathName.LOG: unary(lambda o, a, r, one: o.div(one, a), _A),
    MathName.LOG1P: unary(lambda o, a, r, one: o.div(one, o.b.add(one, a)), _A),
    MathName.LOG2: unary(_log_base(2.0), _A),
    MathName.LOG10: unary(_log_base(10.0), _A),
    MathName.SQRT: unary(lambda o, a, r, one: o.div(one, o.b.mul(o.c(2.0, a), r)), _R),
    MathName.NORM_SQRT: unary(_norm_sqrt, _R),
    MathName.FABS: unary(lambda o, a, r, one: o.sign(a), _A),
    MathName.ERF: unary(_erf(1.0), _A),
    MathName.ERFC: unary(_erf(-1.0), _A),
    MathName.LGAMMA: unary(lambda o, a, r, one: o.math(MathName.DIGAMMA, a), _A),
    MathName.GAMMA: unary(
        lambda o, a, r, one: o.b.mul(r, o.math(MathName.DIGAMMA, a)), Keep((0,), result=True)
    ),
    MathName.FLOOR: unary(lambda o, a, r, one: None, KEEP_NOTHING),
    MathName.CEIL: unary(lambda o, a, r, one: None, KEEP_NOTHING),
    MathName.TRUNC: unary(lambda o, a, r, one: None, KEEP_NOTHING),
    MathName.RINT: unary(lambda o, a, r, one: None, KEEP_NOTHING),
    MathName.ATAN2: Smooth(_atan2, Keep((0, 1))),
    MathName.HYPOT: Smooth(_hypot, Keep((0, 1), result=True)),
    MathName.COPYSIGN: Smooth(_copysign, Keep((0, 1))),
    MathName.FMOD: Smooth(_fmod, Keep((0, 1), only_if_active=1)),
    MathName.POW: POW,
    MathName.IEEE_POW: POW,
}
"""The rule of each differentiable ``math`` function, by name."""

MATH_RULES = {
    **MATH_RULES,
    # an ``ieee_`` twin (NumPy's functions on scalars) has its function's derivative
    **{MathName(f"ieee_{name}"): MATH_RULES[name] for name in ops.IEEE_MATH},
}


@dataclass(frozen=True)
class MathRule(ScalarRule):
    """The rule of :class:`~gradc.compiler.ir.ops.MathCall`: the entry of
    :data:`MATH_RULES` for its function."""

    functions: Mapping[MathName, ScalarRule]

    def of(self, inst: Instruction) -> ScalarRule:
        """The rule of ``inst``'s function.

        Raises:
            NotDifferentiable: it has none (``math.<name>``).
        """
        assert isinstance(inst, ops.MathCall)
        rule = self.functions.get(inst.fn)
        if rule is None:
            raise NotDifferentiable(f"math.{inst.fn}")
        return rule

    def needs(self, inst: Instruction, active: Active) -> tuple[list[Value], bool]:
        assert isinstance(inst, ops.MathCall)
        rule = self.functions.get(inst.fn)
        return rule.needs(inst, active) if rule is not None else (list(inst.args), True)

    def jvp(self, sweep: ForwardSweep, inst: Instruction) -> Value | None:
        return self.of(inst).jvp(sweep, inst)

    def transpose(
        self,
        o: RuleOps,
        inst: Instruction,
        ct: Value,
        result: Value,
        active: Active,
        accumulate: Accumulate,
    ) -> None:
        self.of(inst).transpose(o, inst, ct, result, active, accumulate)


AD_RULES.set([ops.MathCall], MathRule(MATH_RULES))
