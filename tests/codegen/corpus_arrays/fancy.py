"""Indexing that copies: integer-array reads ``x[idx]`` (1-D and 2-D bases, index arrays
of any rank, negative and out-of-range indices with NumPy's IndexError), boolean-mask
reads ``x[mask]`` (a mask argument of the wrong length: NumPy's IndexError; a comparison
as the mask), and ``a.flat[i]`` in C order of any layout."""

import gradc
from gradc import boolean, f64, i64

SHAPES = {
    "gather": {"x": ("n",), "idx": ("k",)},
    "gather_rows": {"A": ("m", "n"), "idx": ("p", "q")},
    "gather_then_view": {"x": ("n",), "idx": ("k",)},
    "select": {"x": ("n",), "m": ("k",)},
    "select_2d": {"A": ("m", "n")},
    "select_int": {"a": ("n",)},
    "flat_item": {"A": ("m", "n")},
    "flat_item_3d": {"T": ("p", "q", "r")},
}

DIMS = {"select": {"k": (0, 6)}, "gather_rows": {"m": (2, 6)}}

ELEMENTS = {
    "gather": {"idx": (-7, 7)},
    # in range: with several bad indices NumPy names the first in its iteration order
    # (memory order for a multi-dimensional index), gradc the first in C order
    "gather_rows": {"idx": (-2, 1)},
    "gather_then_view": {"idx": (-7, 7)},
}

DOMAINS = {
    "flat_item": {"i": (-40, 40)},
    "flat_item_3d": {"i": (-130, 130)},
    "select_2d": {"t": (-5, 5)},
}

RAISES = {
    "gather": "IndexError",
    "gather_then_view": "IndexError",
    "select": "IndexError",
    "flat_item": "IndexError",
    "flat_item_3d": "IndexError",
}

MUTATES = {}

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
