"""Arrays: reductions over ``f64[:]`` and ``f64[:, :]`` parameters, weighted sums, dot
products, matvec then sum, a quadratic form, local temporaries (``np.zeros``) written
and read back, an element overwritten after it was read in a loop, in-place updates of a
local array across loops (smoothing sweeps, a prefix-sum then a cumulative product), a
logsumexp with a running maximum, a softmax-weighted sum, and a loop over a run-time
``n`` shorter than the array. (``a.copy()`` is in array_copy.py.)

Array sizes stay <= 6 elements (every element is checked by finite differences).
"""

import math

import numpy as np

import gradc
from gradc import f64, i64

DOMAINS = {
    "sum_squares": {},
    "prod_elements": {"a": (0.5, 1.5)},
    "log_sum": {"a": (0.3, 3.0)},
    "norm2": {"a": (0.2, 2.0)},
    "partial_sum": {"n": (0, 4)},
    "variance": {},
    "poly_coeffs": {"x": (-1.5, 1.5)},
    "row_norms": {"A": (-2.0, 2.0)},
    "cumprod_sum": {"a": (0.5, 1.5)},
}

SHAPES = {
    "sum_squares": {"a": ("n",)},
    "prod_elements": {"a": ("n",)},
    "log_sum": {"a": ("n",)},
    "weighted_sum": {"x": ("n",), "w": ("n",)},
    "dot": {"a": ("n",), "b": ("n",)},
    "norm2": {"a": ("n",)},
    "partial_sum": {"a": (5,)},
    "variance": {"a": ("n",)},
    "matrix_sum": {"A": ("m", "n")},
    "trace_plus": {"A": (2, 3)},
    "matvec_sum": {"A": ("m", "n"), "x": ("n",)},
    "quad_form": {"A": (2, 2), "x": (2,)},
    "row_norms": {"A": ("m", "n")},
    "temp_prefix": {"a": ("n",)},
    "temp_2d": {"A": (2, 3)},
    "overwrite_after_read": {"a": ("n",)},
    "overwrite_twice": {"a": ("n",)},
    "smooth_inplace": {"a": ("n",)},
    "cumprod_sum": {"a": ("n",)},
    "logsumexp": {"a": ("n",)},
    "softmax_weighted": {"a": ("n",), "v": ("n",)},
    "poly_coeffs": {"c": ("n",)},
    "outer_sum": {"a": ("n",), "b": ("m",)},
}

DIMS = {
    "sum_squares": {"n": (0, 6)},
    "prod_elements": {"n": (1, 6)},
    "log_sum": {"n": (1, 6)},
    "weighted_sum": {"n": (1, 6)},
    "dot": {"n": (1, 6)},
    "norm2": {"n": (1, 6)},
    "variance": {"n": (2, 6)},
    "matrix_sum": {"m": (1, 3), "n": (1, 2)},
    "matvec_sum": {"m": (1, 2), "n": (1, 2)},
    "row_norms": {"m": (1, 3), "n": (1, 2)},
    "temp_prefix": {"n": (1, 6)},
    "overwrite_after_read": {"n": (1, 6)},
    "overwrite_twice": {"n": (2, 6)},
    "smooth_inplace": {"n": (3, 6)},
    "cumprod_sum": {"n": (1, 6)},
    "logsumexp": {"n": (1, 6)},
    "softmax_weighted": {"n": (1, 3)},
    "poly_coeffs": {"n": (1, 6)},
    "outer_sum": {"n": (1, 3), "m": (1, 2)},
}


@gradc.export
def sum_squares(a: f64[:]) -> f64:
    s = 0.0
    for i in range(len(a)):
        s += a[i] * a[i]
    return s


@gradc.export
def prod_elements(a: f64[:]) -> f64:
    p = 1.0
    for i in range(a.shape[0]):
        p *= a[i]
    return p


@gradc.export
def log_sum(a: f64[:]) -> f64:
    s = 0.0
    for i in range(len(a)):
        s += math.log(a[i]) * (i + 1)
    return s


@gradc.export
def weighted_sum(x: f64[:], w: f64[:]) -> f64:
    s = 0.0
    for i in range(len(x)):
        s += x[i] * w[i] * w[i]
    return s


@gradc.export
def dot(a: f64[:], b: f64[:]) -> f64:
    s = 0.0
    for i in range(len(a)):
        s += a[i] * b[i]
    return s


@gradc.export
def norm2(a: f64[:]) -> f64:
    s = 0.0
    for i in range(len(a)):
        s += a[i] * a[i]
    return math.sqrt(s)


@gradc.export
def partial_sum(a: f64[:], x: f64, n: i64) -> f64:
    # loops over a run-time n smaller than the array: later elements get zero gradient
    s = x
    for i in range(n):
        s = s * a[i] + x
    return s


@gradc.export
def variance(a: f64[:]) -> f64:
    n = len(a)
    m = 0.0
    for i in range(n):
        m += a[i]
    m = m / n
    v = 0.0
    for i in range(n):
        d = a[i] - m
        v += d * d
    return v / (n - 1)


@gradc.export
def matrix_sum(A: f64[:, :]) -> f64:
    s = 0.0
    for i in range(A.shape[0]):
        for j in range(A.shape[1]):
            s += A[i, j] * (i + 2 * j + 1) + A[i, j] * A[i, j]
    return s


@gradc.export
def trace_plus(A: f64[:, :]) -> f64:
    s = 0.0
    for i in range(A.shape[0]):
        s += A[i, i] * A[i, i] + A[i, (i + 1) % A.shape[1]]
    return s


@gradc.export
def matvec_sum(A: f64[:, :], x: f64[:]) -> f64:
    m, n = A.shape
    y = np.zeros(m)
    for i in range(m):
        for j in range(n):
            y[i] += A[i, j] * x[j]
    s = 0.0
    for i in range(m):
        s += y[i] * y[i]
    return s


@gradc.export
def quad_form(A: f64[:, :], x: f64[:]) -> f64:
    s = 0.0
    for i in range(2):
        for j in range(2):
            s += x[i] * A[i, j] * x[j]
    return s


@gradc.export
def row_norms(A: f64[:, :]) -> f64:
    # sum of row 2-norms (rows stay away from 0: elements in [-2, 2] plus 3)
    s = 0.0
    for i in range(A.shape[0]):
        r = 0.0
        for j in range(A.shape[1]):
            v = A[i, j] + 3.0
            r += v * v
        s += math.sqrt(r)
    return s


@gradc.export
def temp_prefix(a: f64[:]) -> f64:
    n = len(a)
    pre = np.zeros(n)
    acc = 0.0
    for i in range(n):
        acc += a[i]
        pre[i] = acc
    s = 0.0
    for i in range(n):
        s += pre[i] * pre[i] * (i + 1)
    return s


@gradc.export
def temp_2d(A: f64[:, :]) -> f64:
    B = np.zeros((3, 2))
    for i in range(2):
        for j in range(3):
            B[j, i] = A[i, j] * A[i, j] + 1.0
    s = 0.0
    for j in range(3):
        s += math.sin(B[j, 0]) * B[j, 1]
    return s


@gradc.export
def overwrite_after_read(a: f64[:]) -> f64:
    # a local copy whose elements are read and then overwritten inside the loop
    n = len(a)
    b = np.zeros(n)
    for i in range(n):
        b[i] = a[i]
    s = 0.0
    for i in range(n):
        t = b[i]
        b[i] = t * t + 1.0
        s += t * b[i]
    return s + b[0]


@gradc.export
def overwrite_twice(a: f64[:]) -> f64:
    n = len(a)
    b = np.zeros(n)
    for i in range(n):
        b[i] = a[i]
    for k in range(3):
        for i in range(n):
            b[i] = math.sin(b[i]) + b[(i + 1) % n] * 0.5
    s = 0.0
    for i in range(n):
        s += b[i]
    return s


@gradc.export
def smooth_inplace(a: f64[:], w: f64) -> f64:
    # Gauss-Seidel-like sweeps: every update reads values written earlier in the sweep
    n = len(a)
    b = np.zeros(n)
    for i in range(n):
        b[i] = a[i]
    for _ in range(2):
        for i in range(1, n - 1):
            b[i] = (1.0 - w) * b[i] + w * 0.5 * (b[i - 1] + b[i + 1])
    s = 0.0
    for i in range(n):
        s += b[i] * b[i] * (i + 1)
    return s


@gradc.export
def cumprod_sum(a: f64[:]) -> f64:
    n = len(a)
    c = np.zeros(n)
    c[0] = a[0]
    for i in range(1, n):
        c[i] = c[i - 1] * a[i]
    s = 0.0
    for i in range(n):
        s += c[i]
    return s


@gradc.export
def logsumexp(a: f64[:]) -> f64:
    m = a[0]
    for i in range(1, len(a)):
        if a[i] > m:
            m = a[i]
    s = 0.0
    for i in range(len(a)):
        s += math.exp(a[i] - m)
    return m + math.log(s)


@gradc.export
def softmax_weighted(a: f64[:], v: f64[:]) -> f64:
    n = len(a)
    e = np.zeros(n)
    z = 0.0
    for i in range(n):
        e[i] = math.exp(a[i])
        z += e[i]
    s = 0.0
    for i in range(n):
        s += e[i] / z * v[i]
    return s


@gradc.export
def poly_coeffs(c: f64[:], x: f64) -> f64:
    acc = 0.0
    for i in range(len(c) - 1, -1, -1):
        acc = acc * x + c[i]
    return acc


@gradc.export
def outer_sum(a: f64[:], b: f64[:]) -> f64:
    n = len(a)
    m = len(b)
    outer = np.zeros((n, m))
    for i in range(n):
        for j in range(m):
            outer[i, j] = a[i] * b[j]
    s = 0.0
    for i in range(n):
        for j in range(m):
            s += outer[i, j] * outer[i, j]
    return s


d_sum_squares = gradc.grad(sum_squares, wrt=("a",))
t_sum_squares = gradc.jvp(sum_squares, wrt=("a",))
d_prod_elements = gradc.grad(prod_elements, wrt=("a",))
t_prod_elements = gradc.jvp(prod_elements, wrt=("a",))
d_log_sum = gradc.grad(log_sum, wrt=("a",))
t_log_sum = gradc.jvp(log_sum, wrt=("a",))
d_weighted_sum = gradc.grad(weighted_sum, wrt=("x", "w"))
t_weighted_sum = gradc.jvp(weighted_sum, wrt=("x", "w"))
d_dot = gradc.grad(dot, wrt=("a", "b"))
t_dot = gradc.jvp(dot, wrt=("a", "b"))
d_norm2 = gradc.grad(norm2, wrt=("a",))
t_norm2 = gradc.jvp(norm2, wrt=("a",))
d_partial_sum = gradc.grad(partial_sum, wrt=("a", "x"))
t_partial_sum = gradc.jvp(partial_sum, wrt=("a", "x"))
d_variance = gradc.grad(variance, wrt=("a",))
t_variance = gradc.jvp(variance, wrt=("a",))
d_matrix_sum = gradc.grad(matrix_sum, wrt=("A",))
t_matrix_sum = gradc.jvp(matrix_sum, wrt=("A",))
d_trace_plus = gradc.grad(trace_plus, wrt=("A",))
t_trace_plus = gradc.jvp(trace_plus, wrt=("A",))
d_matvec_sum = gradc.grad(matvec_sum, wrt=("A", "x"))
t_matvec_sum = gradc.jvp(matvec_sum, wrt=("A", "x"))
d_quad_form = gradc.grad(quad_form, wrt=("A", "x"))
t_quad_form = gradc.jvp(quad_form, wrt=("A", "x"))
d_row_norms = gradc.grad(row_norms, wrt=("A",))
t_row_norms = gradc.jvp(row_norms, wrt=("A",))
d_temp_prefix = gradc.grad(temp_prefix, wrt=("a",))
t_temp_prefix = gradc.jvp(temp_prefix, wrt=("a",))
d_temp_2d = gradc.grad(temp_2d, wrt=("A",))
t_temp_2d = gradc.jvp(temp_2d, wrt=("A",))
d_overwrite_after_read = gradc.grad(overwrite_after_read, wrt=("a",))
t_overwrite_after_read = gradc.jvp(overwrite_after_read, wrt=("a",))
d_overwrite_twice = gradc.grad(overwrite_twice, wrt=("a",))
t_overwrite_twice = gradc.jvp(overwrite_twice, wrt=("a",))
d_smooth_inplace = gradc.grad(smooth_inplace, wrt=("a", "w"))
t_smooth_inplace = gradc.jvp(smooth_inplace, wrt=("a", "w"))
d_cumprod_sum = gradc.grad(cumprod_sum, wrt=("a",))
t_cumprod_sum = gradc.jvp(cumprod_sum, wrt=("a",))
d_logsumexp = gradc.grad(logsumexp, wrt=("a",))
t_logsumexp = gradc.jvp(logsumexp, wrt=("a",))
d_softmax_weighted = gradc.grad(softmax_weighted, wrt=("a", "v"))
t_softmax_weighted = gradc.jvp(softmax_weighted, wrt=("a", "v"))
d_poly_coeffs = gradc.grad(poly_coeffs, wrt=("c", "x"))
t_poly_coeffs = gradc.jvp(poly_coeffs, wrt=("c", "x"))
d_outer_sum = gradc.grad(outer_sum, wrt=("a", "b"))
t_outer_sum = gradc.jvp(outer_sum, wrt=("a", "b"))
