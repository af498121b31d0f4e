"""Whole-array elementwise code (issue 11), differentiated after ``lower-arrays`` made it
loops: fused chains of operators and ufuncs, broadcasting of a
row and of scalars, ``np.where``, in-place updates of a local result, reduced to a scalar
by an explicit loop over the result.

Array sizes stay <= 6 elements (every element is checked by finite differences).
"""

import numpy as np

import gradc
from gradc import f64

DOMAINS = {
    "where_select": {"x": (-2.0, 2.0)},
}

KINKS = {"where_select": lambda x, y: tuple(x)}

SHAPES = {
    "gaussian_chain": {"x": ("n",)},
    "broadcast_row": {"A": ("m", "n"), "v": ("n",)},
    "where_select": {"x": ("n",), "y": ("n",)},
    "inplace_local": {"x": ("n",), "y": ("n",)},
}

DIMS = {
    "gaussian_chain": {"n": (1, 6)},
    "broadcast_row": {"m": (1, 3), "n": (1, 2)},
    "where_select": {"n": (1, 6)},
    "inplace_local": {"n": (1, 6)},
}


@gradc.export
def gaussian_chain(x: f64[:], a: f64, b: f64) -> f64:
    y = a * x + b * np.exp(-x * x)
    s = 0.0
    for i in range(len(y)):
        s += y[i]
    return s


@gradc.export
def broadcast_row(A: f64[:, :], v: f64[:], s: f64) -> f64:
    B = (A - v) * (A + s) / 2.0
    t = 0.0
    for i in range(B.shape[0]):
        for j in range(B.shape[1]):
            t += B[i, j] * B[i, j]
    return t


@gradc.export
def where_select(x: f64[:], y: f64[:]) -> f64:
    z = np.where(x > 0.0, x * y, np.sin(y) - x)
    s = 0.0
    for i in range(len(z)):
        s += z[i]
    return s


@gradc.export
def inplace_local(x: f64[:], y: f64[:]) -> f64:
    z = x * y
    z += np.cos(x)
    z *= y
    s = 0.0
    for v in z:
        s += v
    return s


d_gaussian_chain = gradc.grad(gaussian_chain, wrt=("x", "a", "b"))
t_gaussian_chain = gradc.jvp(gaussian_chain, wrt=("x", "a", "b"))
d_broadcast_row = gradc.grad(broadcast_row, wrt=("A", "v", "s"))
t_broadcast_row = gradc.jvp(broadcast_row, wrt=("A", "v", "s"))
d_where_select = gradc.grad(where_select, wrt=("x", "y"))
t_where_select = gradc.jvp(where_select, wrt=("x", "y"))
d_inplace_local = gradc.grad(inplace_local, wrt=("x", "y"))
t_inplace_local = gradc.jvp(inplace_local, wrt=("x", "y"))
