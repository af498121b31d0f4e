"""Special functions the IR needs beyond Python's ``math``: the digamma function ψ.

ψ = Γ'/Γ is the derivative of ``math.lgamma`` (and ``Γ' = Γ·ψ``), used by the AD rules
of ``math.gamma``/``math.lgamma``. One algorithm, written once here as a Python reference
(the interpreter's) with its constants, and emitted straight-line by codegen
(``compiler/codegen/special.py``):

1. reflection for x ≤ 0 (Abramowitz & Stegun 6.3.7): ψ(x) = ψ(1 − x) − π / tan(πx);
   the non-positive integers are poles: NaN;
2. recurrence (A&S 6.3.5) ψ(x) = ψ(x + 1) − 1/x, applied :data:`SHIFTS` times while
   x < :data:`ASYMPTOTIC_FROM` (branch-free: every step is a select);
3. the asymptotic series (A&S 6.3.18) ψ(x) ≈ ln x − 1/(2x) − Σ B₂ₖ / (2k x²ᵏ), k = 1..8,
   whose truncation error at x ≥ 10 is below 1e-17 relative.

Accuracy: for x > 0 an absolute error of a few ulp of max(|ψ(x)|, 4) (the terms cancel
near the root x ≈ 1.4616, so the relative error there is larger); for x < 0 the reflection
adds what ``tan(πx)`` loses (relative error growing like |x|·eps near the poles).
"""

from __future__ import annotations

import math

#: The series is used from here up.
ASYMPTOTIC_FROM = 10.0
#: Recurrence steps: enough to lift any x ≥ 0 (and 1 − x for x ≤ 0) to ASYMPTOTIC_FROM.
SHIFTS = 10
#: B₂ₖ / (2k) for k = 1..8 (Bernoulli numbers B₂ = 1/6, B₄ = −1/30, ... B₁₆ = −3617/510).
SERIES = (
    1.0 / 12.0,
    -1.0 / 120.0,
    1.0 / 252.0,
    -1.0 / 240.0,
    1.0 / 132.0,
    -691.0 / 32760.0,
    1.0 / 12.0,
    -3617.0 / 8160.0,
)


def digamma(x: float) -> float:
    """ψ(x) for a float ``x`` (NaN at the poles 0, −1, −2, ... and for NaN; +inf → +inf)."""
    if math.isnan(x) or x == -math.inf:
        return math.nan
    if x == math.inf:
        return math.inf
    r = 0.0
    if x <= 0.0:
        if x == math.floor(x):
            return math.nan
        r = -math.pi / math.tan(math.pi * x)
        x = 1.0 - x
    for _ in range(SHIFTS):
        if x < ASYMPTOTIC_FROM:
            r -= 1.0 / x
            x += 1.0
    f = 1.0 / (x * x)
    poly = 0.0
    for c in reversed(SERIES):
        poly = poly * f + c
    return r + math.log(x) - 0.5 / x - f * poly
