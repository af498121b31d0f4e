"""Array exports for tests/artifacts/test_fastcall_arrays.py: every array parameter
layout, element type, written parameters, owned, borrowed and tuple results, raises."""

import numpy as np

import gradc
from gradc import boolean, f32, f64, i32, i64


@gradc.export
def first(a: f64[:]) -> f64:
    return a[0]


@gradc.export
def three(a: f64[:], b: f64[::1], c: f64[::1, :]) -> f64:
    s = 0.0
    for i in range(a.shape[0]):
        s += a[i]
    for i in range(b.shape[0]):
        s += 2.0 * b[i]
    for i in range(c.shape[0]):
        for j in range(c.shape[1]):
            s += c[i, j] * (i + 1)
    return s


@gradc.export
def scale(a: f64[:, :], s: f64) -> None:
    for i in range(a.shape[0]):
        for j in range(a.shape[1]):
            a[i, j] = a[i, j] * s


@gradc.export
def count(flags: boolean[:], k: i32[:], m: i64[:, :], x: f32[:]) -> i64:
    n = 0
    for i in range(flags.shape[0]):
        if flags[i]:
            n += 1
    for i in range(k.shape[0]):
        n += k[i]
    for i in range(m.shape[0]):
        for j in range(m.shape[1]):
            n += m[i, j]
    for i in range(x.shape[0]):
        if x[i] > 0.0:
            n += 100
    return n


@gradc.export
def doubled(a: f64[:]) -> f64[:]:
    out = np.empty(a.shape[0])
    for i in range(a.shape[0]):
        out[i] = 2.0 * a[i]
    return out


@gradc.export
def ident(a: f64[:, :]) -> f64[:, :]:
    return a


@gradc.export
def pieces(a: f64[:], n: i64) -> tuple[f64[:], tuple[i64, i64[:]], f64[:]]:
    k = np.zeros(n, dtype=np.int64)
    for i in range(n):
        k[i] = i * i
    return np.ones(n), (n, k), a


@gradc.export
def grid(m: i64, n: i64) -> f64[:, :]:
    out = np.empty((m, n))
    for i in range(m):
        for j in range(n):
            out[i, j] = 10.0 * i + j
    return out


@gradc.export
def energy(x: f64[:, :], w: f64[:], eps: f64 = 0.5) -> f64:
    s = eps
    for i in range(x.shape[0]):
        for j in range(w.shape[0]):
            s += x[i, j] * w[j]
    if s < -100.0:
        raise ValueError("energy below -100")
    return s


d_energy = gradc.grad(energy, wrt=("x", "w"))


@gradc.export
def clip(x: f64, hi: f64 = 1e400) -> f64:
    return min(x, hi)
