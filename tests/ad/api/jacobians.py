"""Array-valued functions for tests/ad/test_ad_jacobians.py: ``gradc.jacfwd`` and
``gradc.jacrev`` (elementwise, reductions, ``@``, slices, loops, several parameters, a
tuple result, a scalar result), and their compositions (Hessians)."""

import math

import numpy as np

import gradc
from gradc import f64, i64


@gradc.export
def elementwise(x: f64[:], c: f64) -> f64[:]:
    return np.sin(x) * c + x * x


@gradc.export
def rowsums(a: f64[:, :]) -> f64[:]:
    return np.sum(a * a, axis=1) + np.exp(a[:, 0])


@gradc.export
def matvec(a: f64[:, :], x: f64[:]) -> f64[:]:
    return a @ np.tanh(x)


@gradc.export
def slices(x: f64[:]) -> f64[:]:
    return x[1:] * x[:-1] - 2.0 * x[::-1][1:]


@gradc.export
def recurrence(x: f64[:], c: f64, n: i64) -> f64[:]:
    out = np.zeros(x.shape[0])
    for i in range(x.shape[0]):
        s = x[i]
        for _ in range(n):
            s = math.sin(s) * c + s
        out[i] = s * x[0]
    return out


@gradc.export
def outer(x: f64[:], y: f64[:]) -> f64[:, :]:
    r = np.zeros((x.shape[0], y.shape[0]))
    for i in range(x.shape[0]):
        for j in range(y.shape[0]):
            r[i, j] = x[i] * math.cos(y[j])
    return r


@gradc.export
def pair(x: f64[:], c: f64) -> tuple[f64, f64[:]]:
    return float(np.sum(x)) * c, x * c


@gradc.export
def scalar_fn(x: f64[:], c: f64) -> f64:
    s = 0.0
    for i in range(x.shape[0]):
        s += math.exp(c * x[i]) - x[i] * x[i] * c
    return s


@gradc.export
def scalar_of_scalar(c: f64) -> f64:
    return math.sin(c) * c


jf_elementwise = gradc.jacfwd(elementwise, wrt=("x", "c"))
jr_elementwise = gradc.jacrev(elementwise, argnums=(0, 1))
jf_rowsums = gradc.jacfwd(rowsums)
jr_rowsums = gradc.jacrev(rowsums)
jf_matvec = gradc.jacfwd(matvec, wrt=("a", "x"))
jr_matvec = gradc.jacrev(matvec, wrt=("a", "x"))
jf_slices = gradc.jacfwd(slices)
jr_slices = gradc.jacrev(slices)
jf_recurrence = gradc.jacfwd(recurrence, wrt=("x", "c"))
jr_recurrence = gradc.jacrev(recurrence, wrt=("x", "c"))
jf_outer = gradc.jacfwd(outer, wrt=("x", "y"))
jr_outer = gradc.jacrev(outer, wrt=("x", "y"))
jf_pair = gradc.jacfwd(pair, wrt=("x", "c"))
jf_scalar = gradc.jacfwd(scalar_fn, wrt=("x", "c"))
jr_scalar = gradc.jacrev(scalar_fn, wrt=("x", "c"))
g_scalar = gradc.grad(scalar_fn, wrt=("x", "c"))
jf_ss = gradc.jacfwd(scalar_of_scalar)
jr_ss = gradc.jacrev(scalar_of_scalar)
# width: k tangents per forward sweep (more in tests/ad/api/width.py)
t_recurrence = gradc.jvp(recurrence, wrt=("x", "c"))
t4_recurrence = gradc.jvp(recurrence, wrt=("x", "c"), width=4)
jf3_recurrence = gradc.jacfwd(recurrence, wrt=("x", "c"), width=3)
