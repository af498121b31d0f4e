"""Language items on arrays: for over enumerate/zip/reversed of arrays (enumerate with a
start, zip stopping at the shortest array and mixing an array with a range, nested
enumerate(zip(...)), reversed arrays, rows of a 2-D array, tuples such as A.shape,
writes through the index enumerate gives); in-place kernels without a result (``->
None``, Numba's ``void(...)`` signature string, ``return None`` and bare ``return``
early exits, helpers whose every return is None).
"""

import gradc
from gradc import f64, i64

SHAPES = {
    "enumerate_weighted": {"a": ("n",)},
    "zip_dot": {"a": ("n",), "b": ("m",)},
    "zip_three_arrays": {"a": ("n",), "b": ("m",), "c": ("k",)},
    "zip_array_range": {"a": ("n",)},
    "reversed_horner": {"c": ("n",)},
    "reversed_rows": {"A": ("m", "n")},
    "enumerate_writes": {"a": ("n",)},
    "zip_rows": {"A": ("m", "n"), "b": ("m",)},
    "shape_tuple_loop": {"A": ("m", "n")},
    "nested_enumerate_zip": {"a": ("n",), "b": ("m",)},
    "scale_return_none": {"a": ("n",)},
    "void_signature": {"a": ("n",)},
    "bare_return_early": {"a": ("n",)},
    "helper_returns_none": {"A": ("m", "n")},
    "clip_in_place": {"a": ("n",)},
}
MUTATES = {
    "enumerate_writes": ("a",),
    "scale_return_none": ("a",),
    "void_signature": ("a",),
    "bare_return_early": ("a",),
    "helper_returns_none": ("A",),
    "clip_in_place": ("a",),
}


@gradc.export
def enumerate_weighted(a: f64[:], k: i64) -> f64:
    s = 0.0
    for i, v in enumerate(a, k):
        s = s * 0.5 + i * v
    return s


@gradc.export
def zip_dot(a: f64[:], b: f64[:]):
    s = 0.0
    count = 0
    for x, y in zip(a, b):
        s += x * y
        count += 1
    return s, count


@gradc.export
def zip_three_arrays(a: f64[:], b: i64[:], c: f64[:]) -> f64:
    s = 0.0
    for x, y, z in zip(a, b, c):
        s = s * 0.25 + x * y - z
    return s


@gradc.export
def zip_array_range(a: i64[:], n: i64) -> i64:
    s = 0
    for i, v in zip(range(n, -n, -1), a):
        s = s * 3 + i * v
    return s


@gradc.export
def reversed_horner(c: f64[:], x: f64) -> f64:
    s = 0.0
    for v in reversed(c):
        s = s * x + v
    return s


@gradc.export
def reversed_rows(A: f64[:, :]) -> f64:
    s = 0.0
    for i in reversed(range(A.shape[0])):
        for j, v in enumerate(range(A.shape[1])):
            s = s * 0.5 + A[i, j] * (v + 1)
    return s


@gradc.export
def enumerate_writes(a: i64[:], k: i64) -> None:
    for i, v in enumerate(a):
        a[i] = v * k + i


@gradc.export
def zip_rows(A: f64[:, :], b: f64[:]) -> f64:
    s = 0.0
    for i, bi in enumerate(b):
        for x, y in zip(range(A.shape[1]), reversed(range(A.shape[1]))):
            s += A[i, x] * A[i, y] * bi
    return s


@gradc.export
def shape_tuple_loop(A: f64[:, :]) -> i64:
    s = 1
    for d in A.shape:
        s = s * 10 + d
    for i, d in enumerate(reversed(A.shape)):
        s += i * d
    return s


@gradc.export
def nested_enumerate_zip(a: f64[:], b: i64[:]) -> f64:
    s = 0.0
    for i, (x, y) in enumerate(zip(a, b), 1):
        s = s * 0.5 + i * x - y
    for x, (j, y) in zip(reversed(a), enumerate(reversed(b))):
        s = s * 0.25 + x * j + y
    for k, (u, v) in enumerate(zip(a, a)):
        s = s + k * u * v
    for t in zip(a, b):
        s = s + t[0] * t[1]
    return s


@gradc.export
def scale_return_none(a: f64[:], s: f64) -> None:
    for i in range(len(a)):
        a[i] *= s
    return None


@gradc.export("void(f64[:], f64)")
def void_signature(a, v):
    for i in range(len(a)):
        a[i] = a[i] - v


@gradc.export
def bare_return_early(a: i64[:], k: i64) -> None:
    # stops at the first element above k: a bare return from inside a loop
    for i in range(len(a)):
        if a[i] > k:
            return
        a[i] = a[i] * 2 + k


def _fill_row(A, i, v):
    if i >= A.shape[0]:
        return None
    for j in range(A.shape[1]):
        A[i, j] = v + j
    return


@gradc.export
def helper_returns_none(A: f64[:, :], v: f64):
    for i in range(0, A.shape[0] + 1, 2):
        _fill_row(A, i, v)


def _clip1(a, i, lo, hi):
    if a[i] < lo:
        a[i] = lo
        return
    if a[i] > hi:
        a[i] = hi


@gradc.export("void(f64[:], f64, f64)")
def clip_in_place(a, lo, hi):
    for i in range(len(a)):
        _clip1(a, i, lo, hi)
