"""Indexing that copies: integer-array reads ``x[idx]`` (1-D and 2-D bases, index arrays
of any rank, negative and out-of-range indices with NumPy's IndexError), boolean-mask
reads ``x[mask]`` (a mask argument of the wrong length: NumPy's IndexError; a comparison
as the mask), ``a.flat[i]`` in C order of any layout, and several integer indices, an
array among them: ``a[rows, cols]`` (index arrays broadcast against each other, scalars
mixed in: ``a[rows, j]``, ``a[i, cols]``) on 2-D and 3-D arrays, negative indices
counted from the end, out-of-range ones and index arrays that do not broadcast raising
NumPy's IndexError (its message), in NumPy's order."""

import numpy as np

import gradc
from gradc import boolean, f64, i32, i64

SHAPES = {
    "gather": {"x": ("n",), "idx": ("k",)},
    "gather_rows": {"A": ("m", "n"), "idx": ("p", "q")},
    "gather_then_view": {"x": ("n",), "idx": ("k",)},
    "select": {"x": ("n",), "m": ("k",)},
    "select_2d": {"A": ("m", "n")},
    "select_int": {"a": ("n",)},
    "flat_item": {"A": ("m", "n")},
    "flat_item_3d": {"T": ("p", "q", "r")},
    "pick": {"A": ("m", "n"), "r": ("k",), "c": ("k",)},
    "pick_mismatch": {"A": ("m", "n"), "r": ("k",), "c": ("p",)},
    "pick_grid": {"A": ("m", "n"), "r": ("k", 1), "c": ("p",)},
    "pick_column": {"A": ("m", "n"), "r": ("k",)},
    "pick_row": {"A": ("m", "n"), "c": ("k",)},
    "pick_3d": {"T": ("m", "n", "q"), "r": ("k",), "c": ("k",)},
    "nll": {"logp": ("m", "n"), "labels": ("m",)},
}

DIMS = {
    "select": {"k": (0, 6)},
    "gather_rows": {"m": (2, 6)},
    "pick_grid": {"m": (2, 6)},
}

ELEMENTS = {
    "gather": {"idx": (-7, 7)},
    # in range: with several bad indices NumPy names the first in its iteration order
    # (memory order for a multi-dimensional index), gradc the first in C order
    "gather_rows": {"idx": (-2, 1)},
    "gather_then_view": {"idx": (-7, 7)},
    "pick": {"r": (-7, 7), "c": (-7, 7)},
    "pick_mismatch": {"r": (-2, 1), "c": (-2, 1)},
    # in range: as gather_rows (NumPy's order differs between layouts; gradc follows it)
    "pick_grid": {"r": (-2, 1), "c": (-7, 7)},
    "pick_column": {"r": (-7, 7)},
    "pick_row": {"c": (-7, 7)},
    "pick_3d": {"r": (-7, 7), "c": (-7, 7)},
    "nll": {"labels": (-1, 0)},
}

DOMAINS = {
    "flat_item": {"i": (-40, 40)},
    "flat_item_3d": {"i": (-130, 130)},
    "select_2d": {"t": (-5, 5)},
    "pick_column": {"j": (-7, 7)},
    "pick_row": {"i": (-7, 7)},
    "pick_3d": {"s": (-7, 7)},
}

RAISES = {
    "gather": "IndexError",
    "gather_then_view": "IndexError",
    "select": "IndexError",
    "flat_item": "IndexError",
    "flat_item_3d": "IndexError",
    "pick": "IndexError",
    "pick_mismatch": "IndexError",
    "pick_grid": "IndexError",
    "pick_column": "IndexError",
    "pick_row": "IndexError",
    "pick_3d": "IndexError",
    "nll": "IndexError",
}

MUTATES = {}

SUMMED = {"nll"}

ULP = set()


@gradc.export
def gather(x: f64[:], idx: i64[:]) -> f64[:]:
    return x[idx]


@gradc.export
def gather_rows(A: f64[:, :], idx: i64[:, :]) -> f64[:, :, :]:
    return A[idx]


@gradc.export
def gather_then_view(x: f64[:], idx: i64[:]) -> f64:
    g = x[idx][::-1]
    g[0:1] = 5.0  # a copy: x is unchanged
    s = 0.0
    for k in range(len(g)):
        s = s * 0.5 + g[k]
    return s


@gradc.export
def select(x: f64[:], m: boolean[:]) -> f64[:]:
    return x[m]


@gradc.export
def select_2d(A: f64[:, :], t: f64) -> f64[:]:
    return A[A > t]


@gradc.export
def select_int(a: i64[:]) -> i64[:]:
    return a[a > 0]


@gradc.export
def flat_item(A: f64[:, :], i: i64) -> f64:
    return A.flat[i]


@gradc.export
def flat_item_3d(T: f64[:, :, :], i: i64) -> f64:
    return T.flat[i]


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
