"""Derivative exports of tests/ad/test_ad_api.py: tangent shapes of ``gradc.jvp``,
``gradc.vjp`` of tuple and array results, and a forward-mode helper returning an inactive
array."""

import math

import numpy as np

import gradc
from gradc import f64, i64


@gradc.export
def weighted(x: f64[:], w: f64[:, :], c: f64) -> f64:
    s = 0.0
    for i in range(x.shape[0]):
        for j in range(w.shape[1]):
            s += x[i] * w[i, j] * c
    return s


@gradc.export
def pair(x: f64, a: f64[:], n: i64) -> tuple[f64, i64, f64]:
    s = 0.0
    for i in range(a.shape[0]):
        s += a[i] * a[i] * x
    return s * x, n + 1, s + a[0] * n


def ramp(n: i64) -> f64[:]:
    r = np.zeros(n)
    for i in range(n):
        r[i] = i + 1.0
    return r


@gradc.export
def ramp_dot(a: f64[:]) -> f64:
    r = ramp(a.shape[0])
    s = 0.0
    for i in range(a.shape[0]):
        s += r[i] * a[i] * a[i]
    return s


t_weighted = gradc.jvp(weighted, wrt=("x", "w", "c"))
v_pair = gradc.vjp(pair, wrt=("x", "a"))
t_ramp_dot = gradc.jvp(ramp_dot, wrt=("a",))
d_ramp_dot = gradc.grad(ramp_dot, wrt=("a",))


@gradc.export
def spread(x: f64[:], c: f64) -> f64[:]:
    y = np.zeros(len(x) + 1)
    for i in range(len(x)):
        y[i] = math.sin(x[i]) * c
        y[i + 1] += x[i] * x[i]
    return y


@gradc.export
def transpose_mix(a: f64[:, :], c: f64) -> f64[:, :]:
    out = np.zeros((a.shape[1], a.shape[0]))
    for i in range(a.shape[0]):
        for j in range(a.shape[1]):
            out[j, i] = a[i, j] * c + a[i, j] * a[i, j]
    return out


v_spread = gradc.vjp(spread, wrt=("x", "c"))
v_transpose_mix = gradc.vjp(transpose_mix, wrt=("a", "c"))
