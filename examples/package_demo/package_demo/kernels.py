"""The kernels of package_demo: compiled by ``gradc build`` when the wheel is built.

This file is read by the compiler, never imported by the package at run time.
"""

import math

import gradc
from gradc import f64


@gradc.export
def softplus(x: f64) -> f64:
    """log(1 + e**x), computed without overflow."""
    if x > 0.0:
        return x + math.log1p(math.exp(-x))
    return math.log1p(math.exp(x))


@gradc.export
def energy(w: f64[:], scale: f64) -> f64:
    """scale · Σ_i (w[i]² + sin(w[i]))."""
    s = 0.0
    for i in range(w.shape[0]):
        s += w[i] * w[i] + math.sin(w[i])
    return scale * s


d_softplus = gradc.grad(softplus, wrt="x")  # (x) -> d softplus / dx = logistic(x)
d_energy = gradc.grad(energy, wrt="w")  # (w, scale) -> array shaped like w
