"""``np.diag``, ``np.tril``/``np.triu``, ``np.roll``, ``np.sort``, ``np.median`` and
boolean-mask writes (``a[mask] = v``, ``a[mask] += v``), ``np.linalg.inv``/``solve``/``det``
``max``/``min`` with ``initial=``, ``@`` of 3-D operands and ``np.einsum`` differentiated (compiler/ir/ops/reorder.py: loops of loads, so the derivative of a sort
follows its permutation). Sorted values keep apart (KINKS: the gaps between elements),
so the permutation is constant around each input.
"""

import numpy as np

import gradc
from gradc import f64, i64

#: its tests run with -m slow: tests/ad/test_ad_array_ops.py covers each operation by default
SLOW = True
SHAPES = {
    "diagonals": {"A": ("m", "n"), "v": ("n",)},
    "triangles": {"A": ("m", "n")},
    "rolled": {"A": ("m", "n"), "v": ("n",)},
    "sorted_rows": {"A": ("m", "n"), "w": ("n",)},
    "medians": {"A": ("m", "n")},
    "masked": {"A": ("m", "n"), "B": ("m", "n")},
    "linear_systems": {"A": ("n", "n"), "b": ("n",)},
    "extrema_initial": {"A": ("m", "n")},
    "batched_products": {"T": ("b", "m", "n"), "U": (1, "n", "m"), "v": ("n",)},
    "einsums": {"A": ("n", "n"), "x": ("n",), "T": ("b", "n", "n")},
}
DIMS = {
    "diagonals": {"m": (1, 4), "n": (1, 4)},
    "triangles": {"m": (1, 4), "n": (1, 4)},
    "rolled": {"m": (1, 3), "n": (1, 4)},
    "sorted_rows": {"m": (1, 3), "n": (1, 5)},
    "medians": {"m": (1, 3), "n": (1, 5)},
    "masked": {"m": (1, 3), "n": (1, 4)},
    "linear_systems": {"n": (1, 4)},
    "extrema_initial": {"m": (1, 3), "n": (1, 3)},
    "batched_products": {"b": (1, 2), "m": (1, 2), "n": (1, 3)},
    "einsums": {"b": (1, 2), "n": (1, 3)},
}
DOMAINS = {"diagonals": {"k": (-2, 2)}, "triangles": {"k": (-2, 2)}, "rolled": {"s": (-5, 5)}}


def _gaps(a):
    v = np.sort(np.ravel(a))
    return tuple(v[1:] - v[:-1])


KINKS = {
    "sorted_rows": lambda A, w: _gaps(A),
    "medians": lambda A: _gaps(A),
    "masked": lambda A, B, s: (*np.ravel(A - 0.5), *np.ravel(A + 0.5)),
    "extrema_initial": lambda A, s: (*_gaps(A), *np.ravel(A - s), *np.ravel(A + s)),
}


@gradc.export
def diagonals(A: f64[:, :], v: f64[:], k: i64) -> f64:
    D = np.diag(v * v, k)
    return np.sum(D * D) + np.sum(np.diag(A, k) * np.diag(A.T)[0]) + np.trace(A @ A.T)


@gradc.export
def triangles(A: f64[:, :], k: i64) -> f64:
    L = np.tril(A, k)
    return np.sum(L * A) + np.sum(np.triu(A * A, -k) * 0.5) + np.sum(np.tril(A.T))


@gradc.export
def rolled(A: f64[:, :], v: f64[:], s: i64) -> f64:
    w = np.arange(v.shape[0]) + 1.0
    return (
        np.sum(np.roll(v, s) * w) + np.sum(np.roll(A, s, axis=1) * A) + np.sum(np.roll(A, -s) ** 2)
    )


@gradc.export
def sorted_rows(A: f64[:, :], w: f64[:]) -> f64:
    S = np.sort(A * 2.0)
    return np.sum(S * w) + np.sum(np.sort(A, axis=None) * np.sort(A, axis=None)[::-1])


@gradc.export
def medians(A: f64[:, :]) -> f64:
    return np.median(A * A) + np.sum(np.median(A, axis=1) * 3.0) + np.median(A[0]) ** 2


@gradc.export
def masked(A: f64[:, :], B: f64[:, :], s: f64) -> f64:
    C = A * 1.0
    m = C > 0.5
    C[m] = B[m] * C[m]
    C[C < -0.5] += s
    C[C < -10.0] = s * s
    return np.sum(C * C)


# A + 4·I: diagonally dominant for the drawn elements, so the pivots never tie
@gradc.export
def linear_systems(A: f64[:, :], b: f64[:]) -> f64:
    W = A * 0.25 + 4.0 * np.eye(A.shape[0])
    x = np.linalg.solve(W, b)
    return np.sum(np.linalg.inv(W) * A) + np.sum(x * x) + np.linalg.det(W)


@gradc.export
def extrema_initial(A: f64[:, :], s: f64) -> f64:
    return np.max(A, initial=s) * 2.0 + np.sum(A.min(axis=1, initial=-s) ** 2)


@gradc.export
def batched_products(T: f64[:, :, :], U: f64[:, :, :], v: f64[:]) -> f64:
    P = T @ U
    return np.sum(P * P) + np.sum((T @ v) * 2.0) + np.sum(v @ U)


@gradc.export
def einsums(A: f64[:, :], x: f64[:], T: f64[:, :, :]) -> f64:
    y = np.einsum("ij,j->i", A, x)
    return (
        np.einsum("i,i->", y, x)
        + np.sum(np.einsum("ij,jk->ik", A, np.einsum("ij->ji", A)) * 0.5)
        + np.einsum("ii->", A) ** 2
        + np.einsum("ij,ij->", A, A)
        + np.sum(np.einsum("i,j->ij", x, y))
        + np.sum(np.einsum("bij,bjk->bik", T, T))
    )


d_diagonals = gradc.grad(diagonals, wrt=("A", "v"))
t_diagonals = gradc.jvp(diagonals, wrt=("A", "v"))
d_triangles = gradc.grad(triangles, wrt=("A",))
t_triangles = gradc.jvp(triangles, wrt=("A",))
d_rolled = gradc.grad(rolled, wrt=("A", "v"))
t_rolled = gradc.jvp(rolled, wrt=("A", "v"))
d_sorted_rows = gradc.grad(sorted_rows, wrt=("A", "w"))
t_sorted_rows = gradc.jvp(sorted_rows, wrt=("A", "w"))
d_medians = gradc.grad(medians, wrt=("A",))
t_medians = gradc.jvp(medians, wrt=("A",))
d_masked = gradc.grad(masked, wrt=("A", "B", "s"))
t_masked = gradc.jvp(masked, wrt=("A", "B", "s"))
d_linear_systems = gradc.grad(linear_systems, wrt=("A", "b"))
t_linear_systems = gradc.jvp(linear_systems, wrt=("A", "b"))
d_extrema_initial = gradc.grad(extrema_initial, wrt=("A", "s"))
t_extrema_initial = gradc.jvp(extrema_initial, wrt=("A", "s"))
d_batched_products = gradc.grad(batched_products, wrt=("T", "U", "v"))
t_batched_products = gradc.jvp(batched_products, wrt=("T", "U", "v"))
d_einsums = gradc.grad(einsums, wrt=("A", "x", "T"))
t_einsums = gradc.jvp(einsums, wrt=("A", "x", "T"))
