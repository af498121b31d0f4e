"""Rules of the arithmetic operations (``r`` is the result):

==========  ===========================================  ============================
operation   JVP: ṙ =                                     adjoint: ā_x +=
==========  ===========================================  ============================
add, sub    ȧ ± ḃ                                         ā, ±ā           (linear)
neg         −ȧ                                            −ā              (linear)
mul         ȧ·b + a·ḃ                                     ā·b, ā·a
div, fdiv   (ȧ − r·ḃ) / b                                 ā/b, −ā·r/b
abs         sign(a)·ȧ (0 at 0, as JAX)                    sign(a)·ā
pow         b·a^(b−1)·ȧ + r·ln(a)·ḃ                       ā·b·a^(b−1), ā·r·ln(a)
            (b·a^(b−1) is 0 where b = 0 or ±inf; r·ln a is 0 where r = 0, its limit,
            and where a <= 0: no derivative in b there)
floordiv    0 (piecewise constant)
mod (%)     ȧ − q·ḃ, q = a // b                          ā, −q·ā   (q: the piece of r)
bitand ...  none: ints and bools (``& | ^ ~ << >>``)
min, max    the tangent of the operand picked              ā to the operand picked
==========  ===========================================  ============================

``min``/``max``/``abs`` follow NumPy/JAX: the derivative of the branch Python picks (at a
tie, ``min(a, b)`` and ``max(a, b)`` pick ``a``). Float ``%`` is CPython's ``a − (a // b)·b``
(the sign of ``b``), JAX's ``lax.rem`` rule with floor for trunc.

The reverse sweep rebuilds (:class:`.base.Rebuild`) rather than tapes ``add``, ``sub``,
``neg``, ``mul`` of scalars and ``//``, ``%``, ``min``, ``max``, ``abs`` of integers.
"""

from __future__ import annotations

from gradc.compiler.ir import ops
from gradc.compiler.ir.core import Instruction, Value
from gradc.compiler.ir.ops import CmpPred, MathName
from gradc.passes.ad.rules.algebra import RuleOps
from gradc.passes.ad.rules.base import (
    KEEP_NOTHING,
    Active,
    Choice,
    Keep,
    Linear,
    NoDerivative,
    Partials,
    Rebuild,
    Smooth,
)
from gradc.passes.ad.rules.registry import AD_RULES

AD_RULES.set([ops.Add], Linear((1.0, 1.0)))
AD_RULES.set([ops.Sub], Linear((1.0, -1.0)))
AD_RULES.set([ops.Neg], Linear((-1.0,)))


def _mul(o: RuleOps, inst: Instruction, active: Active, r: Value) -> Partials:
    a, b = inst.operands()
    return [(a, b), (b, a)]


AD_RULES.set([ops.Mul], Smooth(_mul, Keep(partners=True), Rebuild.SCALAR))  # ā·b to a, ā·a to b


def _div(o: RuleOps, inst: Instruction, active: Active, r: Value) -> Partials:
    a, b = inst.operands()
    inv = o.div(o.c(1.0, r), b)
    return [(a, inv), (b, o.neg(o.mul(r, inv)))]


AD_RULES.set([ops.Div, ops.FDiv], Smooth(_div, Keep((1,), result=True)))  # ā/b, −ā·r/b


def _abs(o: RuleOps, inst: Instruction, active: Active, r: Value) -> Partials:
    (a,) = inst.operands()
    return [(a, o.sign(a))]


AD_RULES.set([ops.Abs], Smooth(_abs, Keep((0,)), Rebuild.INTEGER))


def pow_partials(o: RuleOps, inst: Instruction, active: Active, r: Value) -> Partials:
    """(∂r/∂a, ∂r/∂b) of r = a**b, with IEEE pow and log (never raising).

    ∂r/∂a = b·a^(b−1), and 0 where b == 0 (r = 1 for every a, while a^(−1) is inf at
    a = 0) or b is ±inf (a^b is then 0, 1 or inf: constant in a but at |a| = 1, while
    b·a^(b−1) is ±inf·0). ∂r/∂b = r·ln a, and 0 where r == 0: the limit of r·ln a as r → 0 (0^b for
    b > 0 is 0 for every such b; also inf^b for b < 0 and underflow), where ln a alone
    would be ∓inf. Where a <= 0, a^b has no derivative in b (a negative base: a^b is
    real only at integer b; a zero base: 0^b jumps from inf to 1 to 0 at b = 0), and
    ∂r/∂b is 0 (TensorFlow's convention), not NaN or ∓inf: then an exponent that is
    constant as a whole (``a ** (t - u)`` with ``t``, ``u`` copies of one value) adds its
    exact zero to the gradient (its partials cancel only where finite).
    """
    a, b = inst.operands()
    one = o.c(1.0, a)
    zero = o.c(0.0, a)
    da = o.b.mul(b, o.math(MathName.IEEE_POW, a, o.b.sub(b, one)))
    da = o.b.select(o.b.cmp(CmpPred.EQ, b, zero), zero, da)
    da = o.b.select(o.math(MathName.ISINF, b), zero, da)
    db = None
    if active(b):
        db = o.b.select(o.b.cmp(CmpPred.LE, a, zero), zero, o.b.mul(r, o.math(MathName.LOG, a)))
        db = o.b.select(o.b.cmp(CmpPred.EQ, r, zero), zero, db)
    return [(a, da), (b, db)]


#: ``a ** b`` and ``math.pow(a, b)`` (:mod:`.math` shares it).
POW = Smooth(pow_partials, Keep((0, 1), result_if_active=1))
AD_RULES.set([ops.Pow], POW)


def _piecewise_constant(o: RuleOps, inst: Instruction, active: Active, r: Value) -> Partials:
    return [(x, None) for x in inst.operands()]


AD_RULES.set([ops.FloorDiv], Smooth(_piecewise_constant, KEEP_NOTHING, Rebuild.INTEGER))


def _mod(o: RuleOps, inst: Instruction, active: Active, r: Value) -> Partials:
    """``r = a % b = a − q·b`` with ``q = a // b`` (CPython's float_rem/float_divmod): ∂a
    = 1, ∂b = −q, ``q`` constant between jumps. ``q`` is ``(a − r)/b`` rounded to an
    integer: the piece that holds ``r`` (``a/b`` floored may name the next piece within an
    ulp of a jump), 0 where ``b`` is ±inf (``r`` is then ``a`` or ±inf, constant in b)."""
    a, b = inst.operands()
    db = None
    if active(b):
        q = o.math(MathName.RINT, o.b.binary(ops.FDiv, o.b.sub(a, r), b))
        q = o.b.select(o.math(MathName.ISINF, b), o.c(0.0, r), q)
        db = o.neg(q)
    return [(a, o.c(1.0, r)), (b, db)]


# ints: never active, rebuilt by the reverse sweep; floats: ∂a = 1, ∂b reads a, b and r
AD_RULES.set([ops.Mod], Smooth(_mod, Keep((0, 1), result=True, only_if_active=1), Rebuild.INTEGER))
# ints and bools only: never active, rebuilt by the reverse sweep as integer arithmetic
AD_RULES.set(
    [ops.BitAnd, ops.BitOr, ops.BitXor, ops.LShift, ops.RShift, ops.Invert],
    NoDerivative(Rebuild.INTEGER),
)


def _min(o: RuleOps, inst: Instruction) -> tuple[Value, Value, Value]:
    a, b = inst.operands()
    return o.b.cmp(CmpPred.LT, b, a), b, a  # min(a, b) = b if b < a else a


def _max(o: RuleOps, inst: Instruction) -> tuple[Value, Value, Value]:
    a, b = inst.operands()
    return o.b.cmp(CmpPred.GT, b, a), b, a  # max(a, b) = b if b > a else a


AD_RULES.set([ops.Min], Choice(_min, Keep((0, 1)), Rebuild.INTEGER))
AD_RULES.set([ops.Max], Choice(_max, Keep((0, 1)), Rebuild.INTEGER))
