"""The float arithmetic derivative rules are written with (:class:`RuleOps`): zero
tangents and adjoints skipped (``None``), non-raising ``math`` calls, and the *strong
zero* product of a tangent or adjoint and a partial (:meth:`RuleOps.scale`).
"""

from __future__ import annotations

import math

from gradc.compiler.ir import ops
from gradc.compiler.ir.builder import Builder
from gradc.compiler.ir.core import Value
from gradc.compiler.ir.ops import CmpPred, MathName
from gradc.compiler.ir.types import F64, ScalarType


class RuleOps:
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

    def math(self, fn: MathName, *args: Value) -> Value:
        """``math.fn(*args)`` without Python's checks (``ieee_log(0.0)`` is -inf): a
        partial is evaluated where the primal was, and must not raise where it did not."""
        if fn in ops.IEEE_MATH:
            fn = MathName(f"ieee_{fn.value}")
        ty = args[0].type
        if ty == F64 or not (isinstance(ty, ScalarType) and ty.is_float):
            return self.b.math(fn, *args)
        # an f32 operand (``%`` or ``**`` of f32 arrays): the f64 function, as NumPy's
        # f32 functions are computed (passes/arrays), and the result back in f32
        result = self.b.math(fn, *(self.b.cast(a, F64) for a in args))
        return result if ops.MATH_FUNCTIONS[fn].returns_bool else self.b.cast(result, ty)

    def scale(self, t: Value, p: Value, active_p: bool = False, adjoint: bool = False) -> Value:
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
        mat-vec, measured). So reverse mode of ``sqrt(x * x)`` at 0 is NaN, as JAX's.

        An ``adjoint`` of 0 gives 0 also with an active ``p`` that is ±inf or NaN: a value
        that does not reach the output (an update of a dead copy, a write into an argument
        holding NaN) has adjoint 0 at run time while its partial (an operand of ``*``) may
        be NaN (the array fuzzer's findings, tests/fuzzing/corpus_arrays). The test
        replaces only the NaN such a ``p`` makes (``t·p`` is NaN where ``t`` is 0) by
        ``t·0`` (the same bits as ``t`` times a zeroed ``p``; tangent ``ṫ·0``), so the
        product keeps its own derivative ``ṫ·p + t·ṗ`` where ``t`` is 0 and ``p`` finite
        (forward over reverse);
        it costs ~6% of a product-bound gradient (bench_ad.py matvec-sum and gmm, within
        the noise of a loaded machine), against ~30% for the full check. Forward mode
        needs no such test: the tangents of dead values never reach the output."""
        zero = self.c(0.0, t)
        if isinstance(p, ops.Const):
            if float(p.value) == 0.0:
                return zero
            if math.isfinite(float(p.value)):
                return self.b.mul(t, p)  # ±inf·p, NaN·p and 0·p are what they should be
        elif active_p:
            raw = self.b.mul(t, p)
            if adjoint:  # t·0 where t is 0 and p is ±inf or NaN (t·p is NaN), else t·p
                dead = self.b.binary(
                    ops.BitAnd,
                    self.b.cmp(CmpPred.EQ, t, zero),
                    self.b.cmp(CmpPred.NE, raw, raw),
                )
                return self.b.select(dead, self.b.mul(t, zero), raw)
            return raw
        # the product itself wherever it is a number, so that its own derivative (a
        # second derivative: forward mode over this code) is ṫ·p + t·ṗ also where p or
        # t is 0; the zero only replaces a NaN made by a zero factor
        raw = self.b.mul(t, p)
        product = self.b.select(self.b.cmp(CmpPred.EQ, p, zero), zero, raw)
        zeroed = self.b.select(self.b.cmp(CmpPred.EQ, t, zero), zero, product)
        return self.b.select(self.b.cmp(CmpPred.NE, raw, raw), zeroed, raw)

    def sign(self, x: Value) -> Value:
        """-1, 0 or 1 as a float of ``x``'s type (0 for 0 and NaN)."""
        zero = self.c(0.0, x)
        pos = self.b.cmp(CmpPred.GT, x, zero)
        neg = self.b.cmp(CmpPred.LT, x, zero)
        return self.b.select(pos, self.c(1.0, x), self.b.select(neg, self.c(-1.0, x), zero))

    def select(self, cond: Value, x: Value | None, y: Value | None, like: Value) -> Value | None:
        if x is None and y is None:
            return None
        zero = self.c(0.0, like)
        return self.b.select(cond, x if x is not None else zero, y if y is not None else zero)


def make_ops(b: Builder) -> RuleOps:
    """The rule helpers bound to builder ``b``."""
    return RuleOps(b)
