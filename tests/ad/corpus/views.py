"""Views (compiler/ir/ops/views.py): derivatives through slices with steps (negative
too), row and column views, ``a[i][j]``, ``...``, new axes, transposes and contiguous
reshapes of parameters and of local arrays, and writes through views of local arrays
(the derivative of a view is the same view of the derivative: passes/ad/rules/views.py).

Array sizes stay <= 6 elements (every element is checked by finite differences).
"""

import numpy as np

import gradc
from gradc import f64, i64

DOMAINS = {
    "strided_sum": {"lo": (0, 2), "st": (1, 2)},
    "reversed_weights": {},
    "row_dot": {"i": (-2, 1)},
    "column_products": {"j": (-2, 1)},
}

SHAPES = {
    "strided_sum": {"a": ("n",)},
    "reversed_weights": {"a": ("n",)},
    "row_dot": {"A": (2, "n"), "x": ("n",)},
    "column_products": {"A": ("m", 2)},
    "transpose_quad": {"A": (2, 3), "x": (2,)},
    "chained_rows": {"T": (2, 2, "n")},
    "reshape_sum": {"a": (6,)},
    "reshape_strided": {"a": (6,)},
    "local_view_writes": {"a": ("n",)},
    "new_axis_scale": {"a": ("n",)},
    "ellipsis_col": {"T": (2, 2, 2)},
    "stencil_energy": {"u": (3, "n")},
    "shifted_copy": {"a": ("n",)},
    "inplace_through_views": {"a": ("n",), "x": ("n",)},
    "row_scaling": {"W": (2, "n")},
}

DIMS = {
    "strided_sum": {"n": (0, 6)},
    "reversed_weights": {"n": (1, 6)},
    "row_dot": {"n": (1, 3)},
    "column_products": {"m": (1, 3)},
    "chained_rows": {"n": (1, 2)},
    "local_view_writes": {"n": (1, 5)},
    "new_axis_scale": {"n": (1, 5)},
    "stencil_energy": {"n": (3, 4)},
    "shifted_copy": {"n": (2, 6)},
    "inplace_through_views": {"n": (2, 6)},
    "row_scaling": {"n": (1, 3)},
}


@gradc.export
def strided_sum(a: f64[:], x: f64, lo: i64, st: i64) -> f64:
    b = a[lo::st]
    s = x
    for k in range(len(b)):
        s = s * 0.5 + b[k] * b[k] * x
    return s


@gradc.export
def reversed_weights(a: f64[:]) -> f64:
    r = a[::-1]
    s = 0.0
    for k in range(len(r)):
        s += (k + 1.0) * r[k] * a[k]
    return s


@gradc.export
def row_dot(A: f64[:, :], x: f64[:], i: i64) -> f64:
    r = A[i]
    s = 0.0
    for k in range(len(r)):
        s += r[k] * x[k]
    return s * A[0][0]


@gradc.export
def column_products(A: f64[:, :], j: i64) -> f64:
    c = A[:, j]
    p = 1.0
    for k in range(len(c)):
        p *= c[k] + 2.0
    return p


@gradc.export
def transpose_quad(A: f64[:, :], x: f64[:]) -> f64:
    B = A.T
    s = 0.0
    for i in range(B.shape[0]):
        t = 0.0
        for j in range(B.shape[1]):
            t += B[i, j] * x[j]
        s += t * t
    return s


@gradc.export
def chained_rows(T: f64[:, :, :]) -> f64:
    s = 0.0
    for i in range(2):
        for j in range(2):
            r = T[i][j]
            for k in range(len(r)):
                s += r[k] * T[j, i, k]
    return s


@gradc.export
def reshape_sum(a: f64[::1]) -> f64:
    M = a.reshape(2, -1)
    s = 0.0
    for i in range(2):
        for j in range(M.shape[1]):
            s += M[i, j] * M[1 - i, j] * (j + 1.0)
    return s


@gradc.export
def local_view_writes(a: f64[:]) -> f64:
    z = np.zeros((3, len(a)))
    top = z[0]
    bottom = z[2, ::-1]
    for k in range(len(a)):
        top[k] = a[k] * a[k]
        bottom[k] = top[k] + a[k]
    s = 0.0
    for k in range(len(a)):
        s += z[0, k] * z[2, k] + z[1, k]
    return s


@gradc.export
def new_axis_scale(a: f64[:]) -> f64:
    c = a[:, None]
    r = a[None]
    s = 0.0
    for i in range(len(a)):
        s += c[i, 0] * r[0, i] * (i + 1.0)
    return s


@gradc.export
def ellipsis_col(T: f64[:, :, :]) -> f64:
    C = T[..., 1]
    s = 0.0
    for i in range(2):
        for j in range(2):
            s += C[i, j] * C[j, i] + T[i, j, 0]
    return s


@gradc.export
def stencil_energy(u: f64[:, :]) -> f64:
    lap = u[1:-1, 1:-1] * 4.0 - u[:-2, 1:-1] - u[2:, 1:-1] - u[1:-1, :-2] - u[1:-1, 2:]
    s = 0.0
    for j in range(lap.shape[1]):
        s += lap[0, j] * lap[0, j]
    return s


@gradc.export
def shifted_copy(a: f64[:]) -> f64:
    z = a.copy()
    z[1:] = z[:-1] * a[0]
    z[0] = 0.5
    s = 0.0
    for k in range(len(z)):
        s += z[k] * (k + 1.0)
    return s


@gradc.export
def inplace_through_views(a: f64[:], x: f64[:]) -> f64:
    z = a * 1.0
    z[1:] -= x[:-1] * z[:-1]
    h = z[1:] - z[:-1]
    s = 0.0
    for k in range(len(h)):
        s += h[k] * h[k]
    return s


@gradc.export
def row_scaling(W: f64[:, :], s: f64) -> f64:
    V = W.copy()
    V[0] *= s
    V[:, 0] *= s
    t = 0.0
    for i in range(2):
        for j in range(V.shape[1]):
            t += V[i, j] * W[i, j]
    return t


@gradc.export
def reshape_strided(a: f64[:]) -> f64:
    M = a.reshape(3, 2)  # any stride: a view
    N = M.T
    s = 0.0
    for i in range(2):
        for j in range(3):
            s += N[i, j] * M[j, 1 - i] * (i + j + 1.0)
    return s


d_strided_sum = gradc.grad(strided_sum, wrt=("a", "x"))
t_strided_sum = gradc.jvp(strided_sum, wrt=("a", "x"))
d_reversed_weights = gradc.grad(reversed_weights, wrt=("a",))
t_reversed_weights = gradc.jvp(reversed_weights, wrt=("a",))
d_row_dot = gradc.grad(row_dot, wrt=("A", "x"))
t_row_dot = gradc.jvp(row_dot, wrt=("A", "x"))
d_column_products = gradc.grad(column_products, wrt=("A",))
t_column_products = gradc.jvp(column_products, wrt=("A",))
d_transpose_quad = gradc.grad(transpose_quad, wrt=("A", "x"))
t_transpose_quad = gradc.jvp(transpose_quad, wrt=("A", "x"))
d_chained_rows = gradc.grad(chained_rows, wrt=("T",))
t_chained_rows = gradc.jvp(chained_rows, wrt=("T",))
d_reshape_sum = gradc.grad(reshape_sum, wrt=("a",))
t_reshape_sum = gradc.jvp(reshape_sum, wrt=("a",))
d_local_view_writes = gradc.grad(local_view_writes, wrt=("a",))
t_local_view_writes = gradc.jvp(local_view_writes, wrt=("a",))
d_new_axis_scale = gradc.grad(new_axis_scale, wrt=("a",))
t_new_axis_scale = gradc.jvp(new_axis_scale, wrt=("a",))
d_ellipsis_col = gradc.grad(ellipsis_col, wrt=("T",))
t_ellipsis_col = gradc.jvp(ellipsis_col, wrt=("T",))
d_stencil_energy = gradc.grad(stencil_energy, wrt=("u",))
t_stencil_energy = gradc.jvp(stencil_energy, wrt=("u",))
d_shifted_copy = gradc.grad(shifted_copy, wrt=("a",))
t_shifted_copy = gradc.jvp(shifted_copy, wrt=("a",))
d_inplace_through_views = gradc.grad(inplace_through_views, wrt=("a", "x"))
t_inplace_through_views = gradc.jvp(inplace_through_views, wrt=("a", "x"))
d_row_scaling = gradc.grad(row_scaling, wrt=("W", "s"))
t_row_scaling = gradc.jvp(row_scaling, wrt=("W", "s"))
d_reshape_strided = gradc.grad(reshape_strided, wrt=("a",))
t_reshape_strided = gradc.jvp(reshape_strided, wrt=("a",))
