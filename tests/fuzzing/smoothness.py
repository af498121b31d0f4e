"""Whether a primal is differentiable at the point itself, for the derivative oracle.

Central finite differences say nothing at a point where the primal raises on one side
or its one-sided slopes differ (``oracle._fd`` returns None there). Such a point may be
where the function has no derivative at all: ``sqrt(x * x)`` is ``|x|``, whose one-sided
derivatives at 0 are -1 and +1; ``sqrt(x) * x`` at 0 is at the edge of its domain
(``math.sqrt`` raises just left of it). No number is the derivative there, so neither a
finite value nor a NaN from one mode is wrong, and the two modes may differ: forward
mode gives ``0`` for ``sqrt(x * x)`` (a zero tangent times ``sqrt'(0) = inf`` is a strong
zero) and reverse mode NaN (``inf`` times the active partial ``x = 0``), as JAX gives NaN
in both. The oracle then reports no ``fwd_rev`` finding for a NaN against a finite value.

The test probes the point itself, not its neighbourhood: one-sided slopes at steps
``KINK_STEPS`` (far below the FD steps, so a kink 1e-6 away is not "at the point": its
derivative exists and a NaN there is still a finding) must all disagree, or the primal
raise or be non-finite on a side.
"""

from __future__ import annotations

import math
from collections.abc import Callable

#: The steps of the one-sided slopes (relative to the direction's length).
KINK_STEPS = (1e-9, 1e-11)
#: One-sided slopes closer than this (relative, plus ``KINK_ATOL`` x scale) agree.
KINK_RTOL = 0.1
KINK_ATOL = 1e-3


def kink_at(
    call: Callable[[float], tuple[object, BaseException | None]], value: float, scale: float
) -> bool:
    """True where the primal is not differentiable at the point along the direction.

    ``call(h)`` evaluates the primal at ``x + h v`` (its result and exception);
    ``value`` is the primal at ``x``, ``scale`` the magnitude FD tolerances use."""
    for h in KINK_STEPS:
        fp, ep = call(h)
        fm, em = call(-h)
        if ep or em or not isinstance(fp, float) or not isinstance(fm, float):
            continue  # raises (or is not a float) on a side: the edge of the domain
        if not (math.isfinite(fp) and math.isfinite(fm)):
            continue
        forward, backward = (fp - value) / h, (value - fm) / h
        if (
            abs(forward - backward)
            <= KINK_RTOL * max(abs(forward), abs(backward)) + KINK_ATOL * scale
        ):
            return False  # the one-sided slopes agree at this step: differentiable
    return True
