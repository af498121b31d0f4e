"""One export per operation of reorder.py, linalg_solve.py and mask_writes.py (whose
modules are ``SLOW``: their full sweep of dtypes, forms and errors runs with ``-m slow``):
``np.diag``, ``np.tril``/``np.triu``, ``np.roll``, ``np.sort``/``np.argsort``,
``np.median``, ``max``/``min`` with ``initial=``, ``np.linalg.inv``/``solve``/``det``/``cholesky``,
``@`` of 3-D operands, every ``np.einsum`` form and ``a[mask] = v``/``a[mask] += v``, in
the default run.
"""

import numpy as np

import gradc
from gradc import f64, i64

SHAPES = {
    "diagonals": {"a": ("m", "n"), "v": ("n",)},
    "triangles": {"a": ("m", "n")},
    "rolled": {"a": ("m", "n")},
    "sorted_rows": {"a": ("m", "n")},
    "medians": {"a": ("m", "n")},
    "extrema_initial": {"a": ("m", "n")},
    "solved": {"a": ("n", "n"), "b": ("n",)},
    "cholesky_factor": {"a": ("b", "n", "p")},
    "batched": {"a": ("b", "n", "k"), "c": (1, "k", "m"), "v": ("k",)},
    "einsums": {"A": ("n", "n"), "x": ("n",), "B": ("n", "m"), "T": ("b", "n", "n")},
    "mask_writes": {"a": ("m", "n"), "b": ("m", "n")},
}
ELEMENTS = {"sorted_rows": {"a": "any"}}
DOMAINS = {"diagonals": {"d": (-7, 7)}, "triangles": {"d": (-7, 7)}, "rolled": {"s": (-15, 15)}}
SUMMED = {"solved", "cholesky_factor", "batched", "einsums"}
MUTATES = {"mask_writes": ("a",)}


@gradc.export
def diagonals(a: f64[:, :], v: f64[:], d: i64) -> tuple[f64[:, :], f64[:]]:
    return np.diag(v, d), np.diag(a, d)


@gradc.export
def triangles(a: f64[:, :], d: i64) -> tuple[f64[:, :], f64[:, :]]:
    return np.tril(a, d), np.triu(a, k=-d)


@gradc.export
def rolled(a: f64[:, :], s: i64) -> tuple[f64[:, :], f64[:, :]]:
    return np.roll(a, s, axis=1), np.roll(a, -s)


@gradc.export
def sorted_rows(a: f64[:, :]) -> tuple[f64[:, :], i64[:, :]]:
    return np.sort(a), np.argsort(a, kind="stable")


# a column and a row of s: no median of nothing (where NumPy warns)
@gradc.export
def medians(a: f64[:, :], s: f64) -> tuple[f64, f64[:]]:
    c = np.concatenate((a, np.full((a.shape[0], 1), s)), axis=1)
    d = np.concatenate((c, np.full((1, a.shape[1] + 1), s)), axis=0)
    return np.median(d), np.median(c, axis=1)


@gradc.export
def extrema_initial(a: f64[:, :], s: f64) -> tuple[f64, f64[:]]:
    return np.max(a, initial=s), a.min(axis=1, initial=-s)


@gradc.export
def solved(a: f64[:, :], b: f64[:]) -> tuple[f64[:, :], f64[:], f64]:
    w = a + 100.0 * np.eye(a.shape[0])
    return np.linalg.inv(w) * 100.0, np.linalg.solve(w, b) * 100.0, np.linalg.det(w / 100.0)


@gradc.export
def batched(a: f64[:, :, :], c: f64[:, :, :], v: f64[:]) -> tuple[f64[:, :, :], f64[:, :]]:
    return a @ c, a @ v


@gradc.export
def einsums(
    A: f64[:, :], x: f64[:], B: f64[:, :], T: f64[:, :, :]
) -> tuple[f64[:], f64[:, :], f64, f64[:, :], f64, f64, f64[:, :], f64[:, :, :]]:
    return (
        np.einsum("ij,j->i", A, x),
        np.einsum("ij,jk->ik", A, B),
        np.einsum("i,i->", x, x),
        np.einsum("ij->ji", B),
        np.einsum("ii->", A),
        np.einsum("ij,ij->", B, B),
        np.einsum("i,j->ij", x, x),
        np.einsum("bij,bjk->bik", T, T),
    )


@gradc.export
def mask_writes(a: f64[:, :], b: f64[:, :], s: f64) -> f64[:, :]:
    m = a > s
    a[m] = b[m] * 2.0
    a[~m] += s
    return a.copy()


@gradc.export
def cholesky_factor(a: f64[:, :, :]) -> f64[:, :, :]:
    n = a.shape[1]
    spd = a @ np.transpose(a, (0, 2, 1)) + n * np.eye(n)
    return np.linalg.cholesky(spd + np.triu(spd, 1))  # the upper triangle is not read
