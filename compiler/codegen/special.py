"""LLVM code for the special functions of ``compiler/ir/special.py`` (the digamma ψ).

Straight-line, branch-free code (selects only), so it vectorises and needs no blocks:
the algorithm, constants and accuracy are documented in ``compiler/ir/special.py``,
whose Python ``digamma`` is the reference this code must match.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from llvmlite import ir as ll

from gradc.compiler.ir.special import ASYMPTOTIC_FROM, SERIES, SHIFTS


def emit_digamma(
    b: ll.IRBuilder,
    x: ll.Value,
    intrinsic: Callable[[str, ll.Value], ll.Value],
    tan: Callable[[ll.Value], ll.Value],
) -> ll.Value:
    """ψ(x) for a float ``x`` (``float`` or ``double``); NaN at the poles and for NaN.

    ``intrinsic(name, v)`` calls an LLVM math intrinsic (``floor``, ``log``); ``tan(v)``
    calls libm's ``tan`` of ``v``'s type.
    """
    ty = x.type

    def c(v: float) -> ll.Constant:
        return ll.Constant(ty, v)

    # 1. reflection for x <= 0: psi(x) = psi(1 - x) - pi / tan(pi x); poles give NaN
    nonpositive = b.fcmp_ordered("<=", x, c(0.0))
    pole = b.and_(nonpositive, b.fcmp_ordered("==", x, intrinsic("floor", x)))
    reflected = b.fdiv(c(-math.pi), tan(b.fmul(c(math.pi), x)))
    r = b.select(nonpositive, reflected, c(0.0))
    y = b.select(nonpositive, b.fsub(c(1.0), x), x)
    # 2. recurrence psi(y) = psi(y + 1) - 1/y while y < ASYMPTOTIC_FROM
    for _ in range(SHIFTS):
        low = b.fcmp_ordered("<", y, c(ASYMPTOTIC_FROM))
        r = b.select(low, b.fsub(r, b.fdiv(c(1.0), y)), r)
        y = b.select(low, b.fadd(y, c(1.0)), y)
    # 3. asymptotic series: ln y - 1/(2y) - f * poly(f), f = 1/y^2 (Horner)
    f = b.fdiv(c(1.0), b.fmul(y, y))
    poly: ll.Value = c(SERIES[-1])
    for coefficient in reversed(SERIES[:-1]):
        poly = b.fadd(b.fmul(poly, f), c(coefficient))
    series = b.fsub(b.fsub(intrinsic("log", y), b.fdiv(c(0.5), y)), b.fmul(f, poly))
    result = b.fadd(r, series)
    # +inf stays +inf (inf - inf in the series would give NaN); -inf and poles give NaN
    result = b.select(b.fcmp_ordered("==", x, c(math.inf)), c(math.inf), result)
    minus_inf = b.fcmp_ordered("==", x, c(-math.inf))
    return b.select(b.or_(pole, minus_inf), c(math.nan), result)
