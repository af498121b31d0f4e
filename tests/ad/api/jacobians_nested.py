"""Compositions of Jacobians, for tests/ad/test_ad_jacobians.py (slow): Hessians as
``jacfwd(jacrev(f))``, ``jacrev(jacfwd(f))``, ``jacrev(jacrev(f))``, and the derivative of
an array function's Jacobian."""

import math

import numpy as np

import gradc
from gradc import f64


@gradc.export
def scalar_fn(x: f64[:], c: f64) -> f64:
    s = 0.0
    for i in range(x.shape[0]):
        s += math.exp(c * x[i]) - x[i] * x[i] * c
    return s


@gradc.export
def matvec(a: f64[:, :], x: f64[:]) -> f64[:]:
    return a @ np.tanh(x)


# compositions: Hessians, and the derivative of an array function's Jacobian
h_scalar = gradc.hessian(scalar_fn, wrt="x")
jr_scalar_x = gradc.jacrev(scalar_fn, wrt="x")
jf_scalar_x = gradc.jacfwd(scalar_fn, wrt="x")
jfjr_scalar = gradc.jacfwd(jr_scalar_x, wrt="x")
jrjf_scalar = gradc.jacrev(jf_scalar_x, wrt="x")
jrjr_scalar = gradc.jacrev(jr_scalar_x, wrt="x")
jr_matvec_x = gradc.jacrev(matvec, wrt="x")
jfjr_matvec = gradc.jacfwd(jr_matvec_x, wrt="x")
