"""Exports with default parameter values: int, float (from an int literal and from a
module constant expression), bool, array exports with a scalar default, and a defaulted
in-place kernel. tests/loader/test_export_defaults.py calls them omitting defaults.

No math functions here: every float result must match CPython bit for bit.
"""

import gradc
from gradc import boolean, f64, i64

STEPS = 3
RATE = 0.5 / 4

DOMAINS = {
    "iterate": {"n": (0, 12)},
}


@gradc.export
def iterate(x: f64, n: i64 = STEPS, h: f64 = RATE * 2, damp: f64 = 1) -> f64:
    for _ in range(n):
        x = x - h * x * damp
    return x


@gradc.export
def shift(a: i64, b: i64 = -7, flip: boolean = False):
    if flip:
        return b - a, flip
    return a + b, flip


@gradc.export("f64(f64, f64, f64)")
def clamp(x, lo=-1.0, hi=1.0):
    return min(max(x, lo), hi)
