"""Array copies and ``*_like`` temporaries of differentiated arrays: ``a.copy()`` then
scaling the copy in place, ``np.zeros_like`` filled from the parameter, ``np.ones``
as a multiplicative accumulator, and a copy of an array of constants that an in-place
update then makes active (issue 18, fuzz seed 800817: the copy's source has no shadow). Kept in their own module: a construct without a
derivative rule fails the build of the whole module.
"""

import math

import numpy as np

import gradc
from gradc import f64

SHAPES = {
    "scaled_copy": {"a": ("n",)},
    "zeros_like_fill": {"a": ("n",)},
    "ones_accumulator": {"a": ("n",)},
    "constant_copy_updated": {"a": ("n",)},
}

DIMS = {
    "scaled_copy": {"n": (1, 6)},
    "zeros_like_fill": {"n": (1, 6)},
    "ones_accumulator": {"n": (1, 6)},
    "constant_copy_updated": {"n": (1, 6)},
}


@gradc.export
def scaled_copy(a: f64[:], s: f64) -> f64:
    b = a.copy()
    for i in range(len(b)):
        b[i] *= s
    t = 0.0
    for i in range(len(b)):
        t += b[i] * a[i]
    return t


@gradc.export
def zeros_like_fill(a: f64[:]) -> f64:
    b = np.zeros_like(a)
    for i in range(len(a)):
        b[i] = math.sin(a[i]) * a[i]
    s = 0.0
    for i in range(len(b)):
        s += b[i] * b[i]
    return s


@gradc.export
def ones_accumulator(a: f64[:], x: f64) -> f64:
    p = np.ones(len(a))
    for k in range(2):
        for i in range(len(a)):
            p[i] = p[i] * (a[i] + x * k)
    s = 0.0
    for i in range(len(a)):
        s += p[i]
    return s


@gradc.export
def constant_copy_updated(a: f64[:], s: f64) -> f64:
    u = (np.zeros(len(a)) + 1.0).copy()
    u += a * s
    return np.sum(u * u)


d_scaled_copy = gradc.grad(scaled_copy, wrt=("a", "s"))
t_scaled_copy = gradc.jvp(scaled_copy, wrt=("a", "s"))
d_zeros_like_fill = gradc.grad(zeros_like_fill, wrt=("a",))
t_zeros_like_fill = gradc.jvp(zeros_like_fill, wrt=("a",))
d_ones_accumulator = gradc.grad(ones_accumulator, wrt=("a", "x"))
t_ones_accumulator = gradc.jvp(ones_accumulator, wrt=("a", "x"))
d_constant_copy_updated = gradc.grad(constant_copy_updated, wrt=("a", "s"))
t_constant_copy_updated = gradc.jvp(constant_copy_updated, wrt=("a", "s"))
