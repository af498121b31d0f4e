"""Scalar example: what `gradc build examples/scalars.py` compiles."""

import math

import gradc
from gradc import f64, i64


@gradc.export
def poly(x: f64, n: i64) -> f64:
    s = 0.0
    for k in range(n):
        s += math.sin(x * k) / (k + 1)
    return s


@gradc.export("f64(f64, f64)")  # Numba-style signature string, same meaning
def hypot_clamped(a, b):
    r = math.sqrt(a * a + b * b)
    return r if r < 10.0 else 10.0
