"""Linear algebra and construction (passes/arrays/linalg.py, construct.py): ``@`` of
matrices and vectors (the register-tiled product, its edge tiles and the blocked sums),
``np.dot``, ``np.inner``, ``np.outer``, ``np.trace``, ``np.concatenate``/``np.stack``,
an array literal of active scalars, ``astype`` between float widths, and a product
whose operand is a Fortran-ordered parameter (packed to C order first). AD sees the
loops ``lower-arrays`` made (docs/ad.md), so these check the scalar rules through them.

The results are reduced to a scalar with explicit loops (reductions are another
module's). Sizes stay small: every element is checked by finite differences.
"""

import numpy as np

import gradc
from gradc import f64

SHAPES = {
    "matvec_sq": {"A": ("m", "n"), "x": ("n",)},
    "matmat_weighted": {"A": ("m", "k"), "B": ("k", "n")},
    "inner_outer": {"a": ("n",), "B": (2, "n")},
    "concat_literal": {"a": ("n",), "b": (2,)},
    "fortran_product": {"A": (3, 2), "B": (2, 3)},
}

DIMS = {
    "matvec_sq": {"m": (1, 6), "n": (0, 10)},
    "matmat_weighted": {"m": (1, 5), "k": (1, 9), "n": (1, 9)},
    "inner_outer": {"n": (2, 5)},
    "concat_literal": {"n": (1, 3)},
}


@gradc.export
def matvec_sq(A: f64[:, :], x: f64[:]) -> f64:
    y = A @ x
    s = 0.0
    for i in range(y.shape[0]):
        s += y[i] * y[i]
    return s


@gradc.export
def matmat_weighted(A: f64[:, :], B: f64[:, :]) -> f64:
    C = A @ B
    s = 0.0
    for i in range(C.shape[0]):
        for j in range(C.shape[1]):
            s += (i + 2 * j + 1) * C[i, j] * C[i, j]
    return s


@gradc.export
def inner_outer(a: f64[:], B: f64[:, :]) -> f64:
    v = np.inner(B, a)
    m = np.outer(a, v)
    y = np.dot(a, m)  # a vector times a matrix
    return np.dot(a, a) * v[0] + v[1] * y[0] + np.trace(m)


@gradc.export
def concat_literal(a: f64[:], b: f64[:], y: f64) -> f64:
    c = np.concatenate((a, b, a))
    s = np.stack((b, b), axis=1)
    M = np.array([[y, 2.0], [y * y, 1.0]])
    v = M @ b
    t = 0.0
    for i in range(c.shape[0]):
        t += (i + 1.0) * c[i] * c[i]
    return t + s[1, 0] * s[0, 1] + v[0] * v[1] + np.trace(M)


@gradc.export
def fortran_product(A: f64[::1, :], B: f64[:, :]) -> f64:
    C = B @ A
    return C[0, 0] * C[1, 1] - C[0, 1] + np.trace(C)


d_matvec_sq = gradc.grad(matvec_sq, wrt=("A", "x"))
t_matvec_sq = gradc.jvp(matvec_sq, wrt=("A", "x"))
d_matmat_weighted = gradc.grad(matmat_weighted, wrt=("A", "B"))
t_matmat_weighted = gradc.jvp(matmat_weighted, wrt=("A", "B"))
d_fortran_product = gradc.grad(fortran_product, wrt=("A", "B"))
t_fortran_product = gradc.jvp(fortran_product, wrt=("A", "B"))
d_inner_outer = gradc.grad(inner_outer, wrt=("a", "B"))
t_inner_outer = gradc.jvp(inner_outer, wrt=("a", "B"))
d_concat_literal = gradc.grad(concat_literal, wrt=("a", "b", "y"))
t_concat_literal = gradc.jvp(concat_literal, wrt=("a", "b", "y"))
