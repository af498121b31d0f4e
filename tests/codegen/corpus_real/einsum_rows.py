"""``np.einsum`` as real code writes it: row-wise dot products (``'ij,ij->i'``, the
squared distances of k-means and RBF kernels), column sums, Gram matrices
(``'nd,md->nm'``), ``a.T @ b`` and vector-matrix forms, letters other than ``i, j, k``,
int operands (the dtype kept, as einsum's).

Written for gradc's differential tests (never copied).
"""

import numpy as np

import gradc
from gradc import f64, i64

SHAPES = {
    "pairwise_sq_dists": {"X": ("n", "d"), "Y": ("m", "d")},
    "row_col_forms": {"A": ("n", "d"), "B": ("n", "d"), "w": ("n",)},
    "int_row_sums": {"A": ("n", "d")},
}

DIMS = {}

ELEMENTS = {"int_row_sums": {"A": (-1000, 1000)}}

DOMAINS = {}

RAISES = {}

MUTATES = {}

ULP = set()

SUMMED = {"pairwise_sq_dists", "row_col_forms"}


@gradc.export
def pairwise_sq_dists(X: f64[:, :], Y: f64[:, :]) -> f64[:, :]:
    xx = np.einsum("ij,ij->i", X, X)
    yy = np.einsum("bd,bd->b", Y, Y)
    return xx[:, None] + yy[None, :] - 2.0 * np.einsum("nd,md->nm", X, Y)


@gradc.export
def row_col_forms(
    A: f64[:, :], B: f64[:, :], w: f64[:]
) -> tuple[f64[:], f64[:], f64[:], f64[:, :], f64[:], f64[:]]:
    return (
        np.einsum("ij,ij->j", A, B),
        np.einsum("ij->i", A),
        np.einsum("ij->j", B[::-1]),
        np.einsum("ij,ik->jk", A, B),
        np.einsum("i,ij->j", w, A),
        np.einsum("ij,i->j", B, w),
    )


@gradc.export
def int_row_sums(A: i64[:, :]) -> tuple[i64[:], i64[:], i64[:, :]]:
    return np.einsum("ij->i", A), np.einsum("ij,ij->i", A, A), np.einsum("ij,kj->ik", A, A)
