"""Allocation inside compiled code: np.zeros, np.ones, np.empty, np.full with int and
tuple shapes and every dtype (f64, f32, i64, i32, bool; positional and ``dtype=``),
np.zeros_like / np.ones_like / np.empty_like (with and without dtype), ``a.copy()`` then
mutating the copy (the original must be unchanged), 0-length axes, and stores that convert
between element types (f32 <-> f64, i64 -> i32, int -> f64, comparisons -> bool).

np.empty contents are unspecified: every export fills what it allocates with np.empty
before returning or reading it.
"""

import numpy as np

import gradc
from gradc import boolean, f32, f64, i32, i64

SHAPES = {
    "zeros_like_2d": {"a": ("m", "n")},
    "ones_like_i64": {"a": ("n",)},
    "empty_like_3d": {"T": ("p", "q", "r")},
    "zeros_like_dtype": {"a": ("n",)},
    "ones_like_bool": {"m": ("n",)},
    "empty_like_f32": {"a": ("n",)},
    "empty_like_i32_2d": {"A": ("m", "n")},
    "copy_then_mutate": {"a": ("n",)},
    "copy_2d_mutate": {"A": ("m", "n")},
    "copy_3d": {"T": ("p", "q", "r")},
    "copy_bool_flip": {"m": ("n",)},
    "copy_f32_scale": {"a": ("n",)},
    "f32_to_f64": {"a": ("n",)},
    "f64_to_f32": {"a": ("n",)},
    "i64_to_i32": {"a": ("n",)},
    "i32_to_f64_2d": {"A": ("m", "n")},
    "float_to_int_trunc": {"a": ("n",)},
    "compare_to_bool": {"a": ("n",)},
    "bool_and_or": {"a": ("n",), "b": ("n",)},
    "add_f32": {"a": ("n",), "b": ("n",)},
}

ELEMENTS = {
    "f64_to_f32": {"a": (-1e6, 1e6)},
    "i64_to_i32": {"a": (-(2**31), 2**31 - 1)},
}

DIMS = {}

_SIZE = (0, 6)

DOMAINS = {
    "zeros_1d": {"n": _SIZE},
    "zeros_2d": {"m": _SIZE, "n": _SIZE},
    "zeros_3d": {"m": (0, 4), "n": (0, 4), "p": (0, 4)},
    "zeros_f32_kw": {"n": _SIZE},
    "zeros_i32_2d": {"m": _SIZE, "n": _SIZE},
    "zeros_bool_2d": {"m": _SIZE, "n": _SIZE},
    "zeros_i64_positional": {"n": _SIZE},
    "ones_1d": {"n": _SIZE},
    "ones_2d_i64": {"m": _SIZE, "n": _SIZE},
    "ones_i32_positional": {"n": _SIZE},
    "ones_bool": {"n": _SIZE},
    "ones_f32_3d": {"m": (0, 4), "n": (0, 4), "p": (0, 4)},
    "empty_filled_f64": {"n": _SIZE},
    "empty_filled_i64_2d": {"m": _SIZE, "n": _SIZE},
    "empty_filled_i32_3d": {"m": (0, 4), "n": (0, 4), "p": (0, 4)},
    "empty_filled_f32": {"n": _SIZE},
    "empty_filled_bool": {"n": _SIZE},
    "full_f64": {"n": _SIZE},
    "full_2d": {"m": _SIZE, "n": _SIZE},
    "full_int_inferred": {"n": _SIZE},
    "full_i32": {"m": _SIZE, "n": _SIZE, "v": (-1000, 1000)},
    "full_bool": {"n": _SIZE},
    "full_f32": {"n": _SIZE},
    "full_3d_i64_kw": {"m": (0, 4), "n": (0, 4), "p": (0, 4)},
    "zero_length": {"n": _SIZE},
    "zero_rows": {"n": _SIZE},
    "zero_cols_i64": {"m": _SIZE},
    "iota_int_store": {"n": _SIZE},
    "alloc_then_sum": {"n": _SIZE},
}

RAISES = {}

MUTATES = {}

ULP = set()


# ---------------------------------------------------------------- np.zeros


@gradc.export
def zeros_1d(n: i64) -> f64[:]:
    return np.zeros(n)


@gradc.export
def zeros_2d(m: i64, n: i64) -> f64[:, :]:
    return np.zeros((m, n))


@gradc.export
def zeros_3d(m: i64, n: i64, p: i64) -> f64[:, :, :]:
    out = np.zeros((m, n, p), dtype=np.float64)
    for i in range(m):
        for j in range(n):
            for k in range(p):
                out[i, j, k] = i * 100.0 + j * 10.0 + k
    return out


@gradc.export
def zeros_f32_kw(n: i64) -> f32[:]:
    return np.zeros(n, dtype=np.float32)


@gradc.export
def zeros_i32_2d(m: i64, n: i64) -> i32[:, :]:
    out = np.zeros((m, n), dtype=np.int32)
    for i in range(m):
        for j in range(n):
            out[i, j] = i - j
    return out


@gradc.export
def zeros_bool_2d(m: i64, n: i64) -> boolean[:, :]:
    out = np.zeros((m, n), dtype=np.bool_)
    for i in range(m):
        for j in range(n):
            if (i + j) % 3 == 0:
                out[i, j] = True
    return out


@gradc.export
def zeros_i64_positional(n: i64) -> i64[:]:
    out = np.zeros(n, np.int64)
    for i in range(n):
        out[i] = i * i - 3
    return out


# ---------------------------------------------------------------- np.ones


@gradc.export
def ones_1d(n: i64) -> f64[:]:
    return np.ones(n)


@gradc.export
def ones_2d_i64(m: i64, n: i64) -> i64[:, :]:
    return np.ones((m, n), dtype=np.int64)


@gradc.export
def ones_i32_positional(n: i64) -> i32[:]:
    return np.ones(n, np.int32)


@gradc.export
def ones_bool(n: i64) -> boolean[:]:
    out = np.ones(n, dtype=np.bool_)
    for i in range(0, n, 2):
        out[i] = False
    return out


@gradc.export
def ones_f32_3d(m: i64, n: i64, p: i64) -> f32[:, :, :]:
    return np.ones((m, n, p), dtype=np.float32)


# ---------------------------------------------------------------- np.empty (then filled)


@gradc.export
def empty_filled_f64(n: i64) -> f64[:]:
    out = np.empty(n)
    for i in range(n):
        out[i] = i * 0.5 - 1.0
    return out


@gradc.export
def empty_filled_i64_2d(m: i64, n: i64) -> i64[:, :]:
    out = np.empty((m, n), dtype=np.int64)
    for i in range(m):
        for j in range(n):
            out[i, j] = i * 10 + j
    return out


@gradc.export
def empty_filled_i32_3d(m: i64, n: i64, p: i64) -> i32[:, :, :]:
    out = np.empty((m, n, p), np.int32)
    for i in range(m):
        for j in range(n):
            for k in range(p):
                out[i, j, k] = i * 100 + j * 10 - k
    return out


@gradc.export
def empty_filled_f32(n: i64) -> f32[:]:
    out = np.empty(n, dtype=np.float32)
    for i in range(n):
        out[i] = i * 0.25
    return out


@gradc.export
def empty_filled_bool(n: i64) -> boolean[:]:
    out = np.empty(n, dtype=np.bool_)
    for i in range(n):
        out[i] = i % 3 == 1
    return out


# ---------------------------------------------------------------- np.full


@gradc.export
def full_f64(n: i64, v: f64) -> f64[:]:
    return np.full(n, v)


@gradc.export
def full_2d(m: i64, n: i64) -> f64[:, :]:
    return np.full((m, n), 2.5)


@gradc.export
def full_int_inferred(n: i64) -> i64[:]:
    # NumPy takes the dtype from the fill value: int64
    return np.full(n, 7)


@gradc.export
def full_i32(m: i64, n: i64, v: i64) -> i32[:, :]:
    return np.full((m, n), v, dtype=np.int32)


@gradc.export
def full_bool(n: i64) -> boolean[:]:
    return np.full(n, True, dtype=np.bool_)


@gradc.export
def full_f32(n: i64, v: f32) -> f32[:]:
    return np.full(n, v, dtype=np.float32)


@gradc.export
def full_3d_i64_kw(m: i64, n: i64, p: i64) -> i64[:, :, :]:
    return np.full((m, n, p), -3, dtype=np.int64)


# ---------------------------------------------------------------- *_like


@gradc.export
def zeros_like_2d(a: f64[:, :]) -> f64[:, :]:
    z = np.zeros_like(a)
    for i in range(min(a.shape[0], a.shape[1])):
        z[i, i] = a[i, i]
    return z


@gradc.export
def ones_like_i64(a: i64[:]) -> i64[:]:
    out = np.ones_like(a)
    for i in range(len(a)):
        out[i] += a[i]
    return out


@gradc.export
def empty_like_3d(T: f64[:, :, :]) -> f64[:, :, :]:
    out = np.empty_like(T)
    for i in range(T.shape[0]):
        for j in range(T.shape[1]):
            for k in range(T.shape[2]):
                out[i, j, k] = T[i, j, k] + 1.0
    return out


@gradc.export
def zeros_like_dtype(a: f64[:]) -> i64[:]:
    out = np.zeros_like(a, dtype=np.int64)
    for i in range(len(a)):
        out[i] = int(a[i])
    return out


@gradc.export
def ones_like_bool(m: boolean[:]) -> boolean[:]:
    out = np.ones_like(m)
    for i in range(len(m)):
        if m[i]:
            out[i] = False
    return out


@gradc.export
def empty_like_f32(a: f32[:]) -> f32[:]:
    out = np.empty_like(a)
    for i in range(len(a)):
        out[i] = a[i] * a[i]
    return out


@gradc.export
def empty_like_i32_2d(A: i32[:, :]) -> i32[:, :]:
    out = np.empty_like(A)
    for i in range(A.shape[0]):
        for j in range(A.shape[1]):
            out[i, j] = A[i, j] - A[i, -1]
    return out


# ---------------------------------------------------------------- .copy()


@gradc.export
def copy_then_mutate(a: f64[:]) -> f64[:]:
    b = a.copy()
    for i in range(len(b)):
        b[i] = b[i] * 2.0 + 1.0
    return b


@gradc.export
def copy_2d_mutate(A: i64[:, :]):
    B = A.copy()
    total = 0
    for i in range(B.shape[0]):
        for j in range(B.shape[1]):
            B[i, j] += 1
            total += A[i, j]
    return B, total


@gradc.export
def copy_3d(T: f64[:, :, :]) -> f64[:, :, :]:
    return T.copy()


@gradc.export
def copy_bool_flip(m: boolean[:]) -> boolean[:]:
    c = m.copy()
    if len(c) > 0:
        c[0] = not c[0]
    return c


@gradc.export
def copy_f32_scale(a: f32[:]) -> f32[:]:
    c = a.copy()
    for i in range(len(c)):
        c[i] = c[i] + c[i]
    return c


# ---------------------------------------------------------------- 0-length


@gradc.export
def zero_length(n: i64) -> f64[:]:
    z = np.zeros(0)
    for i in range(n):
        z = np.zeros(0)
    return z


@gradc.export
def zero_rows(n: i64) -> f64[:, :]:
    return np.zeros((0, n))


@gradc.export
def zero_cols_i64(m: i64) -> i64[:, :]:
    return np.ones((m, 0), dtype=np.int64)


# ---------------------------------------------------------------- element conversions


@gradc.export
def f32_to_f64(a: f32[:]) -> f64[:]:
    out = np.zeros(len(a))
    for i in range(len(a)):
        out[i] = a[i]
    return out


@gradc.export
def f64_to_f32(a: f64[:]) -> f32[:]:
    out = np.zeros(len(a), dtype=np.float32)
    for i in range(len(a)):
        out[i] = a[i]
    return out


@gradc.export
def i64_to_i32(a: i64[:]) -> i32[:]:
    out = np.zeros(len(a), dtype=np.int32)
    for i in range(len(a)):
        out[i] = a[i]
    return out


@gradc.export
def i32_to_f64_2d(A: i32[:, :]) -> f64[:, :]:
    out = np.empty((A.shape[0], A.shape[1]))
    for i in range(A.shape[0]):
        for j in range(A.shape[1]):
            out[i, j] = float(A[i, j])
    return out


@gradc.export
def float_to_int_trunc(a: f64[:]) -> i64[:]:
    out = np.empty(len(a), dtype=np.int64)
    for i in range(len(a)):
        out[i] = int(a[i] * 3.0)
    return out


@gradc.export
def iota_int_store(n: i64) -> f64[:]:
    out = np.empty(n)
    for i in range(n):
        out[i] = i
    return out


@gradc.export
def compare_to_bool(a: f64[:], t: f64) -> boolean[:]:
    out = np.zeros(len(a), dtype=np.bool_)
    for i in range(len(a)):
        out[i] = a[i] > t
    return out


@gradc.export
def bool_and_or(a: boolean[:], b: boolean[:]):
    both = np.zeros(len(a), dtype=np.bool_)
    either = np.zeros(len(a), dtype=np.bool_)
    for i in range(len(a)):
        both[i] = a[i] and b[i]
        either[i] = a[i] or b[i]
    return both, either


@gradc.export
def add_f32(a: f32[:], b: f32[:]) -> f32[:]:
    out = np.zeros(len(a), dtype=np.float32)
    for i in range(len(a)):
        out[i] = a[i] + b[i]
    return out


@gradc.export
def alloc_then_sum(n: i64) -> f64:
    t = np.ones(n)
    u = np.zeros_like(t)
    s = 0.0
    for i in range(n):
        u[i] = t[i] * i
        s += u[i]
    return s
