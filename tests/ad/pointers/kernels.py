"""Kernels whose reverse sweeps need element addresses computed in the forward sweep
(tests/ad/test_ad_pointers.py): data-dependent indices, local arrays, 2-D strides, an array
phi of two parameters and a local array."""

import numpy as np

import gradc
from gradc import f64, i64


@gradc.export
def gather_scatter(x: f64[:], idx: i64[:], w: f64) -> f64:
    t = np.zeros(len(x))
    for i in range(len(x)):
        t[i] = x[i] * w
    s = 0.0
    for k in range(len(idx)):
        j = idx[k]
        s += t[j] * x[j]
        t[j] = s * 0.5
    return s + t[0]


@gradc.export
def strided_rows(a: f64[:, :], rows: i64[:]) -> f64:
    s = 0.0
    for k in range(len(rows)):
        r = rows[k]
        for j in range(a.shape[1]):
            s += a[r, j] * a[r, a.shape[1] - 1 - j]
    return s


@gradc.export
def phi_gather(a: f64[:], b: f64[:], idx: i64[:], c: f64) -> f64:
    t = np.zeros(len(a))
    src = a if c > 0.0 else b
    s = 0.0
    for k in range(len(idx)):
        j = idx[k]
        if k % 3 == 2:
            src = t
        s += src[j] * a[j] * c
        src[j] = s
        t[j] = src[j] * 0.5 + b[j]
    return s


d_gather_scatter = gradc.grad(gather_scatter, wrt=("x", "w"))
d_strided_rows = gradc.grad(strided_rows, wrt="a")
d_phi_gather = gradc.grad(phi_gather, wrt=("a", "c"))
