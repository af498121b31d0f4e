"""Calls whose callee writes active values into an array argument (the call's own result
is None or inactive): a local array filled by a helper, a parameter array filled or
scaled in place by a helper, a helper setting one element, and a helper writing through
two levels of calls. The derivative must flow through the array's contents.
"""

import numpy as np

import gradc
from gradc import f64, i64

SHAPES = {
    "fill_param": {"z": ("n",)},
    "scale_param": {"w": (3,)},
}
DIMS = {"fill_param": {"n": (1, 5)}}
DOMAINS = {
    "fill_local": {"n": (1, 5)},
}


def fill(a: f64[:], x: f64) -> None:
    for i in range(a.shape[0]):
        a[i] = x * i


def set_first(a: f64[:], x: f64) -> None:
    a[0] = x


def scale_inplace(a: f64[:], c: f64) -> None:
    for i in range(a.shape[0]):
        a[i] = a[i] * c


def scale_twice(a: f64[:], c: f64) -> None:
    scale_inplace(a, c)
    scale_inplace(a, c + 1.0)


def dot(a: f64[:], b: f64[:]) -> f64:
    s = 0.0
    for i in range(a.shape[0]):
        s += a[i] * b[i]
    return s


@gradc.export
def set_local(x: f64) -> f64:
    z = np.zeros(1)
    set_first(z, x)
    return z[0] * z[0]


@gradc.export
def fill_local(x: f64, n: i64) -> f64:
    z = np.zeros(n)
    fill(z, x)
    s = 0.0
    for i in range(n):
        s += z[i] * z[i]
    return s


@gradc.export
def fill_param(x: f64, z: f64[:], n: i64) -> f64:
    fill(z, x)
    s = 0.0
    for i in range(z.shape[0]):
        s += z[i] * z[i] * (n + 1)
    return s


@gradc.export
def scale_param(w: f64[:], c: f64) -> f64:
    scale_inplace(w, c)
    return dot(w, w)


@gradc.export
def scale_local(x: f64, c: f64) -> f64:
    z = np.ones(3)
    z[1] = x
    scale_twice(z, c)
    return dot(z, z)


d_set_local = gradc.grad(set_local, wrt=("x",))
t_set_local = gradc.jvp(set_local, wrt=("x",))
d_fill_local = gradc.grad(fill_local, wrt=("x",))
t_fill_local = gradc.jvp(fill_local, wrt=("x",))
d_fill_param = gradc.grad(fill_param, wrt=("x", "z"))
t_fill_param = gradc.jvp(fill_param, wrt=("x", "z"))
d_scale_param = gradc.grad(scale_param, wrt=("w", "c"))
t_scale_param = gradc.jvp(scale_param, wrt=("w", "c"))
d_scale_local = gradc.grad(scale_local, wrt=("x", "c"))
t_scale_local = gradc.jvp(scale_local, wrt=("x", "c"))
