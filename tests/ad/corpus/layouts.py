"""Array parameters with a fixed memory order (issue #18, class 2): Fortran-ordered
(``f64[::1, :]``) and C-ordered (``f64[:, ::1]``) parameters that are written, read,
passed to helpers (that also write them), copied, and merged by array phis with each
other, with any-strides parameters and with local arrays. Derivative code makes its own
arrays C-ordered, so the tangent or shadow of an F-ordered array is typed "any strides"
(``passes/ad/layout.py``); before, forward mode of a written F parameter was an internal
compiler error.
"""

import math

import numpy as np

import gradc
from gradc import f64, i64

SHAPES = {
    "f_written": {"b1": (2, 3)},
    "f_helper": {"b": (2, 2)},
    "f_phi": {"b": (2, 2), "c": (2, 2)},
    "f_mixed_phi": {"b": (2, 2), "a": (2, 2)},
    "c_written": {"b": (2, 3)},
    "f_copy": {"b": (3, 2)},
    "f_loop": {"b": ("m", "n")},
}
DIMS = {"f_loop": {"m": (0, 3), "n": (1, 3)}}

KINKS = {
    "f_phi": lambda b, c, x: (x,),
    "f_mixed_phi": lambda b, a, x: (x, x - 1.0),
}


@gradc.export
def f_written(x0: bool, b1: f64[::1, :], z2: f64, n3: i64) -> f64:
    b1[1, 1] = 1.0
    b1[0, 2] = z2 * b1[1, 0]
    return b1[0, 2] * b1[0, 1] + b1[1, 1] * z2


def _h(b):
    return b[0, 1] * b[1, 0]


def _scale(b, x):
    b[1, 1] = b[1, 1] * x


@gradc.export
def f_helper(x: f64, b: f64[::1, :]) -> f64:
    b[1, 0] = x * b[0, 1]
    _scale(b, x)
    return _h(b) + b[1, 1]


@gradc.export
def f_phi(b: f64[::1, :], c: f64[::1, :], x: f64) -> f64:
    src = b if x > 0.0 else c
    src[0, 1] = x * src[1, 0]
    return src[0, 1] + b[1, 1] * c[1, 1]


@gradc.export
def f_mixed_phi(b: f64[::1, :], a: f64[:, :], x: f64) -> f64:
    src = b if x > 0.0 else a
    tmp = np.zeros((2, 2))
    tmp[0, 0] = x
    src2 = tmp if x > 1.0 else src
    src2[1, 0] = src2[0, 0] * x
    return src[0, 1] * x + src2[1, 0] * b[1, 1]


@gradc.export
def c_written(b: f64[:, ::1], x: f64) -> f64:
    b[1, 2] = math.sin(x) * b[0, 0]
    return b[1, 2] * b[0, 2] + x


@gradc.export
def f_copy(b: f64[::1, :], x: f64) -> f64:
    c = b.copy()
    c[2, 0] = x * c[0, 1]
    b[0, 0] = c[2, 0] * c[1, 1]
    return b[0, 0] + c[2, 0]


@gradc.export
def f_loop(b: f64[::1, :], x: f64) -> f64:
    s = x
    for i in range(b.shape[0]):
        for j in range(b.shape[1]):
            b[i, j] = b[i, j] * s
            s = s + b[i, j] * 0.5
    return s


d_f_written = gradc.grad(f_written, wrt=("b1", "z2"))
t_f_written = gradc.jvp(f_written, wrt=("b1", "z2"))
d_f_helper = gradc.grad(f_helper, wrt=("x", "b"))
t_f_helper = gradc.jvp(f_helper, wrt=("x", "b"))
d_f_phi = gradc.grad(f_phi, wrt=("b", "c", "x"))
t_f_phi = gradc.jvp(f_phi, wrt=("b", "c", "x"))
d_f_mixed_phi = gradc.grad(f_mixed_phi, wrt=("b", "a", "x"))
t_f_mixed_phi = gradc.jvp(f_mixed_phi, wrt=("b", "a", "x"))
d_c_written = gradc.grad(c_written, wrt=("b", "x"))
t_c_written = gradc.jvp(c_written, wrt=("b", "x"))
d_f_copy = gradc.grad(f_copy, wrt=("b", "x"))
t_f_copy = gradc.jvp(f_copy, wrt=("b", "x"))
d_f_loop = gradc.grad(f_loop, wrt=("b", "x"))
t_f_loop = gradc.jvp(f_loop, wrt=("b", "x"))
