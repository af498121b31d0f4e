"""Indexing: reads and writes of single elements in 1-D, 2-D and 3-D arrays of every
dtype, negative indices with Python's meaning, out-of-bounds reads and writes (IndexError
with NumPy's message, checked by the harness), gathers and scatters through index arrays,
``len``/``shape``/``shape[k]``/``size``/``ndim``, early returns from loops over arrays.

No math functions here: every float result must match CPython+NumPy bit for bit.
"""

import numpy as np

import gradc
from gradc import boolean, f32, f64, i32, i64

SHAPES = {
    "get": {"a": ("n",)},
    "set_at": {"a": ("n",)},
    "get2": {"A": ("m", "n")},
    "set2": {"A": ("m", "n")},
    "get3": {"T": ("p", "q", "r")},
    "set3": {"T": ("p", "q", "r")},
    "get_i64": {"a": ("n",)},
    "get_i32": {"a": ("n",)},
    "get_f32": {"a": ("n",)},
    "get_bool": {"m": ("n",)},
    "toggle_bool": {"m": ("n",)},
    "last_and_first": {"a": ("n",)},
    "sum_one_past_end": {"a": ("n",)},
    "write_past_end": {"a": ("n",)},
    "neg_index_out_of_range": {"a": ("n",)},
    "corner_sum": {"A": ("m", "n")},
    "gather": {"a": ("n",), "idx": ("k",)},
    "scatter_add": {"out": ("n",), "idx": ("k",), "w": ("k",)},
    "histogram": {"a": ("n",)},
    "shape_info_1d": {"a": ("n",)},
    "shape_info_2d": {"A": ("m", "n")},
    "shape_3d": {"T": ("p", "q", "r")},
    "size_is_product": {"T": ("p", "q", "r")},
    "reversed_horner": {"a": ("n",)},
    "alternating_from_end": {"a": ("n",)},
    "count_matches": {"a": ("n",), "b": ("k",)},
    "is_sorted": {"a": ("n",)},
    "find_first": {"a": ("n",)},
    "last_row_first_col": {"A": ("m", "n")},
    "fixed_shape_sum": {"A": (3, "n")},
    "index_from_len": {"a": ("n",)},
}

ELEMENTS = {
    "gather": {"idx": (-7, 7)},
    "scatter_add": {"idx": (-7, 7)},
    "histogram": {"a": (-30, 30)},
    "count_matches": {"a": (-3, 3), "b": (-3, 3)},
    "find_first": {"a": (-4, 4)},
    "get_i32": {"a": (-(2**31), 2**31 - 1)},
    "get_i64": {"a": (-(2**63), 2**63 - 1)},
    "get_f32": {"a": "any"},
    "alternating_from_end": {"a": (-1000, 1000)},
}

DIMS = {}

DOMAINS = {
    "get": {"i": (-9, 9)},
    "set_at": {"i": (-9, 9)},
    "get2": {"i": (-8, 8), "j": (-8, 8)},
    "set2": {"i": (-8, 8), "j": (-8, 8)},
    "get3": {"i": (-7, 7), "j": (-7, 7), "k": (-7, 7)},
    "set3": {"i": (-7, 7), "j": (-7, 7), "k": (-7, 7)},
    "get_i64": {"i": (-8, 8)},
    "get_i32": {"i": (-8, 8)},
    "get_f32": {"i": (-8, 8)},
    "get_bool": {"i": (-8, 8)},
    "toggle_bool": {"i": (-8, 8)},
    "histogram": {"nbins": (1, 6)},
    "find_first": {"target": (-4, 4)},
}

RAISES = {
    "get": "IndexError",
    "set_at": "IndexError",
    "get2": "IndexError",
    "set2": "IndexError",
    "get3": "IndexError",
    "set3": "IndexError",
    "get_i64": "IndexError",
    "get_i32": "IndexError",
    "get_f32": "IndexError",
    "get_bool": "IndexError",
    "toggle_bool": "IndexError",
    "last_and_first": "IndexError",
    "sum_one_past_end": "IndexError",  # always
    "write_past_end": "IndexError",  # always, after writing every element
    "neg_index_out_of_range": "IndexError",  # always
    "corner_sum": "IndexError",
    "gather": "IndexError",
    "scatter_add": "IndexError",
    "last_row_first_col": "IndexError",
    "index_from_len": "IndexError",  # always
}

MUTATES = {
    "set_at": ("a",),
    "set2": ("A",),
    "set3": ("T",),
    "toggle_bool": ("m",),
    "write_past_end": ("a",),
    "scatter_add": ("out",),
}

ULP = set()


@gradc.export
def get(a: f64[:], i: i64) -> f64:
    return a[i]


@gradc.export
def set_at(a: f64[:], i: i64, v: f64) -> None:
    a[i] = v


@gradc.export
def get2(A: f64[:, :], i: i64, j: i64) -> f64:
    return A[i, j]


@gradc.export
def set2(A: f64[:, :], i: i64, j: i64, v: f64) -> None:
    A[i, j] = v


@gradc.export
def get3(T: f64[:, :, :], i: i64, j: i64, k: i64) -> f64:
    return T[i, j, k]


@gradc.export
def set3(T: i64[:, :, :], i: i64, j: i64, k: i64, v: i64) -> None:
    T[i, j, k] = v


@gradc.export
def get_i64(a: i64[:], i: i64) -> i64:
    return a[i]


@gradc.export
def get_i32(a: i32[:], i: i64) -> i32:
    return a[i]


@gradc.export
def get_f32(a: f32[:], i: i64) -> f32:
    return a[i]


@gradc.export
def get_bool(m: boolean[:], i: i64) -> boolean:
    return m[i]


@gradc.export
def toggle_bool(m: boolean[:], i: i64) -> None:
    m[i] = not m[i]


@gradc.export
def last_and_first(a: f64[:]):
    return a[-1], a[0]


@gradc.export
def sum_one_past_end(a: f64[:]) -> f64:
    s = 0.0
    for i in range(len(a) + 1):
        s += a[i]
    return s


@gradc.export
def write_past_end(a: f64[:]) -> None:
    for i in range(len(a) + 1):
        a[i] = 1.5 * i


@gradc.export
def neg_index_out_of_range(a: f64[:]) -> f64:
    return a[-len(a) - 1]


@gradc.export
def corner_sum(A: f64[:, :]) -> f64:
    return A[0, 0] + A[0, -1] + A[-1, 0] + A[-1, -1]


@gradc.export
def gather(a: f64[:], idx: i64[:]) -> f64[:]:
    out = np.zeros(len(idx))
    for i in range(len(idx)):
        out[i] = a[idx[i]]
    return out


@gradc.export
def scatter_add(out: f64[:], idx: i64[:], w: f64[:]) -> None:
    for i in range(len(idx)):
        out[idx[i]] += w[i]


@gradc.export
def histogram(a: i64[:], nbins: i64) -> i64[:]:
    counts = np.zeros(nbins, dtype=np.int64)
    for v in a:
        counts[v % nbins] += 1
    return counts


@gradc.export
def shape_info_1d(a: f64[:]):
    return len(a), a.shape[0], a.size, a.ndim


@gradc.export
def shape_info_2d(A: f64[:, :]):
    m, n = A.shape
    return m, n, len(A), A.shape[1], A.size, A.ndim


@gradc.export
def shape_3d(T: f64[:, :, :]):
    return T.shape


@gradc.export
def size_is_product(T: i64[:, :, :]) -> boolean:
    return T.size == T.shape[0] * T.shape[1] * T.shape[2] and T.ndim == 3


@gradc.export
def reversed_horner(a: f64[:]) -> f64:
    s = 0.0
    for k in range(1, len(a) + 1):
        s = s * 0.5 + a[-k]
    return s


@gradc.export
def alternating_from_end(a: i64[:]) -> i64:
    s = 0
    n = len(a)
    for k in range(n):
        if k % 2 == 0:
            s += a[-1 - k]
        else:
            s -= a[k - n]
    return s


@gradc.export
def count_matches(a: i64[:], b: i64[:]) -> i64:
    c = 0
    for v in a:
        for w in b:
            if v == w:
                c += 1
    return c


@gradc.export
def is_sorted(a: f64[:]) -> boolean:
    for i in range(1, len(a)):
        if a[i - 1] > a[i]:
            return False
    return True


@gradc.export
def find_first(a: i64[:], target: i64) -> i64:
    for i in range(len(a)):
        if a[i] == target:
            return i
    return -1


@gradc.export
def last_row_first_col(A: f64[:, :]) -> f64:
    s = 0.0
    for j in range(A.shape[1]):
        s += A[-1, j]
    for i in range(A.shape[0]):
        s += A[i, -A.shape[1]]
    return s


@gradc.export
def fixed_shape_sum(A: f64[:, :]) -> f64:
    s = 0.0
    for j in range(A.shape[1]):
        s += A[0, j] - A[1, j] * A[2, j]
    return s


@gradc.export
def index_from_len(a: i64[:]) -> i64:
    return a[len(a)]
