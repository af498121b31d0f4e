"""Indexing that copies, differentiated: integer-array gathers ``x[idx]`` (adjoint: a
scatter-add, repeated indices accumulating), boolean-mask reads ``x[mask]`` and
``a.flat[i]``.

Array sizes stay <= 6 elements (every element is checked by finite differences).
"""

import numpy as np

import gradc
from gradc import f64, i64

DOMAINS = {"flat_weighted": {"i": (-4, 3)}}

SHAPES = {
    "gather_weighted": {"x": ("n",)},
    "gather_rows": {"A": (3, "n")},
    "masked_sum": {"x": ("n",), "y": ("n",)},
    "flat_weighted": {"A": (2, 2)},
}

DIMS = {
    "gather_weighted": {"n": (1, 6)},
    "gather_rows": {"n": (1, 2)},
    "masked_sum": {"n": (1, 6)},
}

KINKS = {"masked_sum": lambda x, y: tuple(y)}


@gradc.export
def gather_weighted(x: f64[:]) -> f64:
    idx = np.zeros(4, dtype=np.int64)
    for k in range(4):
        idx[k] = (3 * k + 1) % len(x)  # repeats when x is short
    g = x[idx]
    s = 0.0
    for k in range(len(g)):
        s += (k + 1.0) * g[k] * g[k]
    return s


@gradc.export
def gather_rows(A: f64[:, :]) -> f64:
    idx = np.zeros(3, dtype=np.int64)
    idx[0] = 2
    idx[1] = 0
    idx[2] = -1
    G = A[idx]
    s = 0.0
    for i in range(3):
        for j in range(G.shape[1]):
            s += G[i, j] * A[i, j]
    return s


@gradc.export
def masked_sum(x: f64[:], y: f64[:]) -> f64:
    m = np.zeros(len(y), dtype=np.bool_)
    for k in range(len(y)):
        m[k] = y[k] > 0.0
    v = x[m]
    s = 0.0
    for k in range(len(v)):
        s += v[k] * v[k] * (k + 2.0)
    return s


@gradc.export
def flat_weighted(A: f64[:, :], i: i64) -> f64:
    return A.flat[i] * A.flat[3] + A.T.flat[1]


d_gather_weighted = gradc.grad(gather_weighted, wrt=("x",))
t_gather_weighted = gradc.jvp(gather_weighted, wrt=("x",))
d_gather_rows = gradc.grad(gather_rows, wrt=("A",))
t_gather_rows = gradc.jvp(gather_rows, wrt=("A",))
d_masked_sum = gradc.grad(masked_sum, wrt=("x", "y"))
t_masked_sum = gradc.jvp(masked_sum, wrt=("x", "y"))
d_flat_weighted = gradc.grad(flat_weighted, wrt=("A",))
t_flat_weighted = gradc.jvp(flat_weighted, wrt=("A",))
