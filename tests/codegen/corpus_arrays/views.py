"""Views: basic slicing with steps (negative too) on every axis, integer row and column
views, ``a[i][j]``, ``...``, ``None``/``np.newaxis``, ``.T``/``.transpose``, ``.reshape``
and ``.ravel`` of C arrays, ``.flatten``, ``len``/``.shape``/``np.shape`` of views, and
writes through views (NumPy's aliasing: the base changes).

Results that are views of an argument are returned as ``.copy()`` (the harness checks that
results do not share an argument's memory); views of local arrays are returned as they are.
"""

import numpy as np

import gradc
from gradc import boolean, f64, i64

SHAPES = {
    "slice_sum": {"a": ("n",)},
    "slice_copy": {"a": ("n",)},
    "reverse_copy": {"a": ("n",)},
    "inner": {"a": ("n",)},
    "int_slice_sum": {"a": ("n",)},
    "bool_view_count": {"m": ("n",)},
    "row": {"A": ("m", "n")},
    "col": {"A": ("m", "n")},
    "row_elem": {"A": ("m", "n")},
    "block": {"A": ("m", "n")},
    "reversed_2d": {"A": ("m", "n")},
    "ellipsis_last": {"T": ("p", "q", "r")},
    "ellipsis_first": {"T": ("p", "q", "r")},
    "row_of_row": {"T": ("p", "q", "r")},
    "new_axes": {"a": ("n",)},
    "transposed": {"A": ("m", "n")},
    "transposed_3d": {"T": ("p", "q", "r")},
    "write_through_row": {"A": ("m", "n")},
    "write_through_reversed": {"a": ("n",)},
    "write_through_transpose": {"A": ("m", "n")},
    "reshape_c": {"a": ("n",)},
    "ravel_c": {"A": ("m", "n")},
    "flatten_any": {"A": ("m", "n")},
    "view_shapes": {"A": ("m", "n")},
    "view_chain": {"a": ("n",)},
    "iterate_rows": {"A": ("m", "n")},
    "reshape_any_1d": {"a": ("n",)},
    "enumerate_reversed_rows": {"A": ("m", "n")},
    "view_through_helper": {"a": ("n",)},
}

DIMS = {}

ELEMENTS = {"int_slice_sum": {"a": (-1000, 1000)}}

DOMAINS = {
    name: {"lo": (-8, 8), "hi": (-8, 8), "st": (-3, 3)}
    for name in ("slice_sum", "slice_copy", "int_slice_sum", "bool_view_count")
}
DOMAINS.update(
    {
        "row": {"i": (-7, 7)},
        "col": {"j": (-7, 7)},
        "row_elem": {"i": (-7, 7), "j": (-7, 7)},
        "block": {"r0": (-7, 7), "r1": (-7, 7), "c0": (-7, 7), "c1": (-7, 7), "s": (-3, 3)},
        "ellipsis_last": {"k": (-7, 7)},
        "ellipsis_first": {"i": (-7, 7)},
        "row_of_row": {"i": (-6, 6), "j": (-6, 6)},
        "write_through_row": {"i": (-7, 7)},
        "reshape_c": {"m": (-2, 4)},
        "reshape_any_1d": {"m": (-2, 4)},
        "view_shapes": {"lo": (-8, 8)},
    }
)

RAISES = {
    "iterate_rows": "IndexError",  # rows of length 0
    "enumerate_reversed_rows": "IndexError",
    "view_through_helper": "IndexError",
    "slice_sum": "ValueError",  # step 0
    "slice_copy": "ValueError",
    "int_slice_sum": "ValueError",
    "bool_view_count": "ValueError",
    "row": "IndexError",
    "col": "IndexError",
    "row_elem": "IndexError",
    "block": "ValueError",
    "ellipsis_last": "IndexError",
    "ellipsis_first": "IndexError",
    "row_of_row": "IndexError",
    "write_through_row": "IndexError",
    "reshape_c": "ValueError",
    "reshape_any_1d": "ValueError",
}

MUTATES = {
    "write_through_row": ("A",),
    "write_through_reversed": ("a",),
    "write_through_transpose": ("A",),
    "reshape_any_1d": ("a",),
}

ULP = set()


@gradc.export
def slice_sum(a: f64[:], lo: i64, hi: i64, st: i64) -> f64:
    b = a[lo:hi:st]
    s = 0.0
    for k in range(len(b)):
        s = s * 0.5 + b[k]
    return s


@gradc.export
def slice_copy(a: f64[:], lo: i64, hi: i64, st: i64) -> f64[:]:
    return a[lo:hi:st].copy()


@gradc.export
def reverse_copy(a: f64[:]) -> f64[:]:
    return a[::-1].copy()


@gradc.export
def inner(a: f64[:]) -> f64[:]:
    return a[1:-1].copy()


@gradc.export
def int_slice_sum(a: i64[:], lo: i64, hi: i64, st: i64) -> i64:
    b = a[lo:][:hi][::st]
    s = 0
    for k in range(len(b)):
        s = s * 3 + b[k]
    return s


@gradc.export
def bool_view_count(m: boolean[:], lo: i64, hi: i64, st: i64) -> i64:
    c = 0
    for v in m[hi:lo:st]:
        if v:
            c += 1
    return c


@gradc.export
def row(A: f64[:, :], i: i64) -> f64[:]:
    return A[i].copy()


@gradc.export
def col(A: f64[:, :], j: i64) -> f64[:]:
    return A[:, j].copy()


@gradc.export
def row_elem(A: f64[:, :], i: i64, j: i64) -> f64:
    return A[i][j]


@gradc.export
def block(A: f64[:, :], r0: i64, r1: i64, c0: i64, c1: i64, s: i64) -> f64[:, :]:
    return A[r0:r1, c1:c0:s].copy()


@gradc.export
def reversed_2d(A: f64[:, :]) -> f64[:, :]:
    return A[::-1, ::-2].copy()


@gradc.export
def ellipsis_last(T: f64[:, :, :], k: i64) -> f64[:, :]:
    return T[..., k].copy()


@gradc.export
def ellipsis_first(T: f64[:, :, :], i: i64) -> f64[:, :]:
    return T[i, ...].copy()


@gradc.export
def row_of_row(T: f64[:, :, :], i: i64, j: i64):
    return T[i][j].copy(), T[i, :, j].copy()


@gradc.export
def new_axes(a: f64[:]):
    b = a[None, :]
    c = a[:, np.newaxis]
    d = a[None, 1:, None]
    return b.copy(), c.copy(), d.copy()


@gradc.export
def transposed(A: f64[:, :]) -> f64[:, :]:
    return A.T.copy()


@gradc.export
def transposed_3d(T: f64[:, :, :]):
    return (
        T.transpose(2, 0, 1).copy(),
        T.transpose((1, 0, 2)).copy(),
        T.transpose(-1, 0, 1).copy(),
        T.T.copy(),
    )


@gradc.export
def write_through_row(A: f64[:, :], i: i64) -> None:
    r = A[i]
    for k in range(len(r)):
        r[k] = r[k] * 2.0 + k


@gradc.export
def write_through_reversed(a: f64[:]) -> None:
    b = a[::-2]
    for k in range(len(b)):
        b[k] = k - b[k]


@gradc.export
def write_through_transpose(A: f64[:, :]) -> None:
    B = A.T
    for i in range(B.shape[0]):
        for j in range(B.shape[1]):
            B[i, j] = B[i, j] + 10.0 * i + j


@gradc.export
def reshape_c(a: f64[::1], m: i64) -> f64[:, :]:
    return a.reshape(m, -1).copy()


@gradc.export
def ravel_c(A: f64[:, ::1]) -> f64[:]:
    return A.ravel().copy()


@gradc.export
def flatten_any(A: f64[:, :]) -> f64[:]:
    return A.flatten()


@gradc.export
def view_shapes(A: f64[:, :], lo: i64):
    v = A[lo:, ::2]
    return len(v), v.shape, np.shape(v.T), v.size, v.ndim


@gradc.export
def view_chain(a: f64[:]):
    z = np.zeros((4, len(a) + 1))
    r = z[1:, ::-1]
    for k in range(len(a)):
        r[0, k] = a[k]
    return z, r, z[2:].T


@gradc.export
def iterate_rows(A: f64[:, :]) -> f64:
    s = 0.0
    for r in A:
        s = s * 0.5 + r[0] - r[-1]
    return s


@gradc.export
def enumerate_reversed_rows(A: f64[:, :]) -> f64:
    s = 0.0
    for i, r in enumerate(A[::-1]):
        s += i * r[-1]
    return s


def _tail(v):
    return v[1:]


@gradc.export
def view_through_helper(a: f64[:]) -> f64:
    w = _tail(a[::-1])
    return w[0] + len(w)


@gradc.export
def reshape_any_1d(a: f64[:], m: i64) -> f64[:, :]:
    r = a.reshape(m, -1)  # a view for every stride of a 1-D array, as NumPy's
    if r.size > 0:
        r[0, -1] = 99.0
    return r.T.copy()
