"""Several integer indices, an array among them: ``a[rows, cols]`` (index arrays
broadcast against each other, scalars mixed in: ``a[rows, j]``, ``a[i, cols]``), on 2-D
and 3-D arrays; negative indices counted from the end, out-of-range ones and index
arrays that do not broadcast raise NumPy's IndexError (its message), in NumPy's order."""

import numpy as np

import gradc
from gradc import f64, i32, i64

SHAPES = {
    "pick": {"A": ("m", "n"), "r": ("k",), "c": ("k",)},
    "pick_mismatch": {"A": ("m", "n"), "r": ("k",), "c": ("p",)},
    "pick_grid": {"A": ("m", "n"), "r": ("k", 1), "c": ("p",)},
    "pick_column": {"A": ("m", "n"), "r": ("k",)},
    "pick_row": {"A": ("m", "n"), "c": ("k",)},
    "pick_3d": {"T": ("m", "n", "q"), "r": ("k",), "c": ("k",)},
    "nll": {"logp": ("m", "n"), "labels": ("m",)},
}

DIMS = {"pick_grid": {"m": (2, 6)}}

ELEMENTS = {
    "pick": {"r": (-7, 7), "c": (-7, 7)},
    "pick_mismatch": {"r": (-2, 1), "c": (-2, 1)},
    # in range: with several bad indices NumPy names the first in its iteration order,
    # which differs between layouts (gradc follows it: memory order)
    "pick_grid": {"r": (-2, 1), "c": (-7, 7)},
    "pick_column": {"r": (-7, 7)},
    "pick_row": {"c": (-7, 7)},
    "pick_3d": {"r": (-7, 7), "c": (-7, 7)},
    "nll": {"labels": (-1, 0)},
}

DOMAINS = {
    "pick_column": {"j": (-7, 7)},
    "pick_row": {"i": (-7, 7)},
    "pick_3d": {"s": (-7, 7)},
}

RAISES = {
    "pick": "IndexError",
    "pick_mismatch": "IndexError",
    "pick_grid": "IndexError",
    "pick_column": "IndexError",
    "pick_row": "IndexError",
    "pick_3d": "IndexError",
    "nll": "IndexError",
}

MUTATES = {}

ULP = set()

SUMMED = {"nll"}


@gradc.export
def pick(A: f64[:, :], r: i64[:], c: i64[:]) -> f64[:]:
    return A[r, c]


@gradc.export
def pick_mismatch(A: f64[:, :], r: i64[:], c: i32[:]) -> f64[:]:
    return A[r, c]


@gradc.export
def pick_grid(A: f64[:, :], r: i64[:, :], c: i64[:]) -> f64[:, :]:
    return A[r, c]


@gradc.export
def pick_column(A: f64[:, :], r: i64[:], j: i64) -> f64[:]:
    return A[r, j]


@gradc.export
def pick_row(A: f64[:, :], i: i64, c: i64[:]) -> f64[:]:
    return A[i, c]


@gradc.export
def pick_3d(T: f64[:, :, :], r: i64[:], c: i64[:], s: i64) -> f64[:]:
    return T[r, s, c] + T[r, c, -1 - s]


@gradc.export
def nll(logp: f64[:, :], labels: i64[:]) -> f64:
    return -np.sum(logp[np.arange(logp.shape[0]), labels])
