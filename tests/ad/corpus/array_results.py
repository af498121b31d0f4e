"""Calls returning active arrays: a helper allocating and returning a new array computed
from active inputs (two helpers, a call of a call's result, a helper given a local array).
A helper returning its own array argument is a compile error in reverse mode."""

import numpy as np

import gradc
from gradc import f64, i64

SHAPES = {
    "squares_sum": {"a": ("n",)},
    "chained": {"a": ("n",)},
}
DIMS = {"squares_sum": {"n": (1, 5)}, "chained": {"n": (1, 5)}}


def scaled(a: f64[:], c: f64) -> f64[:]:
    r = np.zeros(a.shape[0])
    for i in range(a.shape[0]):
        r[i] = a[i] * c
    return r


def squares(a: f64[:]) -> f64[:]:
    r = np.zeros(a.shape[0])
    for i in range(a.shape[0]):
        r[i] = a[i] * a[i]
    return r


@gradc.export
def squares_sum(a: f64[:], c: f64) -> f64:
    r = squares(a)
    t = scaled(a, c)
    s = 0.0
    for i in range(a.shape[0]):
        s += r[i] * t[i] + r[i]
    return s


@gradc.export
def chained(a: f64[:], c: f64) -> f64:
    r = scaled(squares(a), c)
    s = 0.0
    for i in range(r.shape[0]):
        s += r[i] * a[i]
    return s


@gradc.export
def local_result(x: f64, n: i64) -> f64:
    z = np.ones(n + 1)
    z[0] = x
    r = scaled(z, x)
    return r[0] * r[n] + r[0]


d_squares_sum = gradc.grad(squares_sum, wrt=("a", "c"))
t_squares_sum = gradc.jvp(squares_sum, wrt=("a", "c"))
d_chained = gradc.grad(chained, wrt=("a", "c"))
t_chained = gradc.jvp(chained, wrt=("a", "c"))
d_local_result = gradc.grad(local_result, wrt=("x",))
t_local_result = gradc.jvp(local_result, wrt=("x",))
