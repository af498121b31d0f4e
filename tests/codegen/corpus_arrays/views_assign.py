"""Writes through views: slice assignment (``a[1:] = b`` with broadcasting, ``a[2:5] =
0.0``, ``A[i] = row``, ``A[:, j] = col``), overlapping source and destination (NumPy
copies the source first: ``a[1:] = a[:-1]`` shifts), in-place operators on views
(``a[1:] -= x``, ``w[:, j] *= s``, ``w[i] *= s``) and views as operands of whole-array
expressions (``h[1:] - h[:-1]``)."""

import gradc
from gradc import f64, i64

SHAPES = {
    "shift_right": {"a": ("n",)},
    "shift_left": {"a": ("n",)},
    "reverse_in_place": {"a": ("n",)},
    "zero_middle": {"a": ("n",)},
    "set_rows": {"A": ("m", "n"), "r": ("k",)},
    "set_row": {"A": ("m", "n"), "r": ("n",)},
    "set_column": {"A": ("m", "n"), "c": ("m",)},
    "set_block_scalar": {"A": ("m", "n")},
    "subtract_tail": {"a": ("n",), "x": ("k",)},
    "scale_column": {"w": ("m", "n")},
    "scale_row": {"w": ("m", "n")},
    "strided_add": {"a": ("n",), "b": ("k",)},
    "differences": {"h": ("n",)},
    "stencil": {"u": ("m", "n")},
    "local_shift": {"a": ("n",)},
    "local_reverse": {"a": ("n",)},
}

DIMS = {
    "set_rows": {"k": (0, 6)},
    "subtract_tail": {"k": (0, 6)},
    "strided_add": {"k": (0, 4)},
}

DOMAINS = {
    "set_row": {"i": (-6, 6)},
    "set_column": {"j": (-6, 6)},
    "set_block_scalar": {"lo": (-6, 6), "hi": (-6, 6)},
    "scale_column": {"j": (-6, 6)},
    "scale_row": {"i": (-6, 6)},
}

RAISES = {
    "set_rows": "ValueError",  # r's length is neither n nor 1
    "set_row": "IndexError",
    "set_column": "IndexError",
    "subtract_tail": "ValueError",
    "scale_column": "IndexError",
    "scale_row": "IndexError",
    "strided_add": "ValueError",
}

MUTATES = {
    name: (arg,)
    for name, arg in (
        ("shift_right", "a"),
        ("shift_left", "a"),
        ("reverse_in_place", "a"),
        ("zero_middle", "a"),
        ("set_rows", "A"),
        ("set_row", "A"),
        ("set_column", "A"),
        ("set_block_scalar", "A"),
        ("subtract_tail", "a"),
        ("scale_column", "w"),
        ("scale_row", "w"),
        ("strided_add", "a"),
    )
}

ULP = set()


@gradc.export
def shift_right(a: f64[:]) -> None:
    a[1:] = a[:-1]


@gradc.export
def shift_left(a: f64[:]) -> None:
    a[:-1] = a[1:]


@gradc.export
def reverse_in_place(a: f64[:]) -> None:
    a[:] = a[::-1]


@gradc.export
def zero_middle(a: f64[:]) -> None:
    a[2:5] = 0.0


@gradc.export
def set_rows(A: f64[:, :], r: f64[:]) -> None:
    A[1:] = r


@gradc.export
def set_row(A: f64[:, :], r: f64[:], i: i64) -> None:
    A[i] = r


@gradc.export
def set_column(A: f64[:, :], c: f64[:], j: i64) -> None:
    A[:, j] = c


@gradc.export
def set_block_scalar(A: f64[:, :], lo: i64, hi: i64) -> None:
    A[lo:hi, ::2] = -1.5


@gradc.export
def subtract_tail(a: f64[:], x: f64[:]) -> None:
    a[1:] -= x


@gradc.export
def scale_column(w: f64[:, :], j: i64, s: f64) -> None:
    w[:, j] *= s


@gradc.export
def scale_row(w: f64[:, :], i: i64, s: f64) -> None:
    w[i] *= s


@gradc.export
def strided_add(a: f64[:], b: f64[:]) -> None:
    a[::2] += b


@gradc.export
def differences(h: f64[:]) -> f64[:]:
    return h[1:] - h[:-1]


@gradc.export
def stencil(u: f64[:, :]) -> f64[:, :]:
    return u[1:-1, 1:-1] * 4.0 - u[:-2, 1:-1] - u[2:, 1:-1] - u[1:-1, :-2] - u[1:-1, 2:]


@gradc.export
def local_shift(a: f64[:]) -> f64[:]:
    z = a.copy()
    z[1:] = z[:-1] * 2.0
    r = z[::-1]
    r += z
    return z


@gradc.export
def local_reverse(a: f64[:]) -> f64[:]:
    # the source is the whole target, a new array lower-arrays made: copied first
    z = a * 2.0
    z[::-1] = z
    w = a + 1.0
    w[::-1] += w
    return z + w
