"""Functions exported with several signatures, as Numba users write them
(tests/loader/test_signatures.py); run as plain Python they are the oracle."""

import numpy as np

import gradc


@gradc.export(["f64(f64, f64)", "f32(f32, f32)", "i64(i64, i64)"])
def poly(x, y):
    return x * y * x + x - y


@gradc.export(["f64(f64[:])", "f32(f32[:])", "f64(f64[:, :])"])
def energy(a):
    return np.sum(a * a)


@gradc.export(["f64(f64, i64)", "f32(f32, i64)", "i64(i64, i64)"])
def power(x, n=3):
    r = x * 0 + 1
    for _ in range(n):
        r = r * x
    return r


@gradc.export("f64(f64)")
def uses_poly(x):
    # compiled code specialises poly to the argument types, as for any helper (Python's
    # semantics): (f64, f64) is the export poly.f64.f64, (f64, i64) a helper of its own
    return poly(x, 2.0) + poly(x, 3)


d_poly = gradc.grad(poly, wrt=("x", "y"))
dx_poly = gradc.grad(poly, wrt="x")
ddx_poly = gradc.grad(dx_poly, wrt="x")  # second order: the f64 signature only
h_poly = gradc.hessian(poly, wrt=("x", "y"))
d_power = gradc.grad(power)
