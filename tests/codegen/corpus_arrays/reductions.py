"""Reductions: sums, dot products, max/min with index, means, counts over bool arrays,
``for v in a``, row/column reductions into new arrays, 2-D and 3-D sums, f32/i32/i64
element types, signature strings with array types.

Every loop fixes the order of the floating-point operations, so results must match
CPython+NumPy bit for bit — except the exports in ULP, which call math functions.

f32 elements: ``float(v)`` widens to f64 before accumulating (NumPy would accumulate a
Python float plus a float32 in float32); ``sum_f32_native`` accumulates float32 on both
sides on purpose.
"""

import math

import numpy as np

import gradc
from gradc import boolean, f32, f64, i32, i64

SHAPES = {
    "sum_f64": {"a": ("n",)},
    "sum_for_each": {"a": ("n",)},
    "sum_i64": {"a": ("n",)},
    "dot": {"a": ("n",), "b": ("n",)},
    "max_with_index": {"a": ("n",)},
    "argmin_i64": {"a": ("n",)},
    "mean": {"a": ("n",)},
    "count_positive": {"a": ("n",)},
    "count_true": {"m": ("n",)},
    "any_true": {"m": ("n",)},
    "all_positive": {"a": ("n",)},
    "masked_sum": {"a": ("n",), "m": ("n",)},
    "sum_2d": {"A": ("m", "n")},
    "trace": {"A": ("n", "n")},
    "sum_3d": {"T": ("p", "q", "r")},
    "frobenius_norm": {"A": ("m", "n")},
    "sum_f32_as_f64": {"a": ("n",)},
    "sum_f32_native": {"a": ("n",)},
    "sum_i32": {"a": ("n",)},
    "max_abs_i32": {"a": ("n",)},
    "column_sums": {"A": ("m", "n")},
    "row_max": {"A": ("m", "n")},
    "dot_sig": {"a": ("n",), "b": ("n",)},
    "weighted_mean_sig": {"x": ("n",), "w": ("n",)},
    "count_in_range_3d": {"T": ("p", "q", "r")},
    "sum_contiguous": {"a": ("n",)},
    "min_max_2d": {"A": ("m", "n")},
    "row_sums_f32": {"A": ("m", "n")},
    "count_true_2d": {"M": ("m", "n")},
}

ELEMENTS = {
    "weighted_mean_sig": {"w": (0.5, 2.0)},
    "max_abs_i32": {"a": (-1000, 1000)},
    "count_in_range_3d": {"T": (-5, 5)},
}

DIMS = {}

DOMAINS = {
    "count_in_range_3d": {"lo": (-6, 6), "hi": (-6, 6)},
}

#: Exports that raise for some inputs, with the exception CPython+NumPy raises.
RAISES = {
    "max_with_index": "IndexError",  # empty array: a[0]
    "mean": "ZeroDivisionError",  # empty array: 0.0 / 0
    "sum_f32_native": "IndexError",  # empty array
    "row_max": "IndexError",  # m > 0 rows of length 0: A[i, 0]
    "weighted_mean_sig": "ZeroDivisionError",  # empty arrays
    "min_max_2d": "IndexError",  # A[0, 0] of an empty matrix
}

#: Exports that write into (some of) their array arguments.
MUTATES = {}

#: Exports compared within 1 ulp (they call math functions).
ULP = {"frobenius_norm"}


@gradc.export
def sum_f64(a: f64[:]) -> f64:
    s = 0.0
    for i in range(len(a)):
        s += a[i]
    return s


@gradc.export
def sum_for_each(a: f64[:]) -> f64:
    s = 0.0
    for v in a:
        s = s + v
    return s


@gradc.export
def sum_i64(a: i64[:]) -> i64:
    s = 0
    for v in a:
        s += v
    return s


@gradc.export
def dot(a: f64[:], b: f64[:]) -> f64:
    acc = 0.0
    for i in range(a.shape[0]):
        acc += a[i] * b[i]
    return acc


@gradc.export
def max_with_index(a: f64[:]):
    # an empty array raises IndexError: index 0 is out of bounds for axis 0 with size 0
    best = a[0]
    idx = 0
    for i in range(1, len(a)):
        if a[i] > best:
            best = a[i]
            idx = i
    return best, idx


@gradc.export
def argmin_i64(a: i64[:]) -> i64:
    best = 0
    for i in range(1, a.size):
        if a[i] < a[best]:
            best = i
    return best


@gradc.export
def mean(a: f64[:]) -> f64:
    s = 0.0
    for v in a:
        s += v
    return s / len(a)


@gradc.export
def count_positive(a: f64[:]) -> i64:
    c = 0
    for v in a:
        if v > 0.0:
            c += 1
    return c


@gradc.export
def count_true(m: boolean[:]) -> i64:
    c = 0
    for v in m:
        if v:
            c += 1
    return c


@gradc.export
def any_true(m: boolean[:]) -> boolean:
    for i in range(len(m)):
        if m[i]:
            return True
    return False


@gradc.export
def all_positive(a: f64[:]) -> boolean:
    for v in a:
        if not v > 0.0:
            return False
    return True


@gradc.export
def masked_sum(a: f64[:], m: boolean[:]) -> f64:
    s = 0.0
    for i in range(len(a)):
        if m[i]:
            s += a[i]
    return s


@gradc.export
def sum_2d(A: f64[:, :]) -> f64:
    m, n = A.shape
    s = 0.0
    for i in range(m):
        for j in range(n):
            s += A[i, j]
    return s


@gradc.export
def trace(A: f64[:, :]) -> f64:
    t = 0.0
    for i in range(min(A.shape[0], A.shape[1])):
        t += A[i, i]
    return t


@gradc.export
def sum_3d(T: f64[:, :, :]) -> f64:
    p, q, r = T.shape
    s = 0.0
    for i in range(p):
        for j in range(q):
            for k in range(r):
                s += T[i, j, k]
    return s


@gradc.export
def frobenius_norm(A: f64[:, :]) -> f64:
    s = 0.0
    for i in range(A.shape[0]):
        for j in range(A.shape[1]):
            s += A[i, j] * A[i, j]
    return math.sqrt(s)


@gradc.export
def sum_f32_as_f64(a: f32[:]) -> f64:
    s = 0.0
    for v in a:
        s += float(v)
    return s


@gradc.export
def sum_f32_native(a: f32[:]) -> f32:
    acc = a[0]
    for i in range(1, len(a)):
        acc = acc + a[i]
    return acc


@gradc.export
def sum_i32(a: i32[:]) -> i64:
    s = 0
    for i in range(len(a)):
        s += int(a[i])
    return s


@gradc.export
def max_abs_i32(a: i32[:]) -> i64:
    best = 0
    for v in a:
        if abs(int(v)) > best:
            best = abs(int(v))
    return best


@gradc.export
def column_sums(A: f64[:, :]) -> f64[:]:
    m, n = A.shape
    out = np.zeros(n)
    for i in range(m):
        for j in range(n):
            out[j] += A[i, j]
    return out


@gradc.export
def row_max(A: f64[:, :]) -> f64[:]:
    m = A.shape[0]
    out = np.empty(m)
    for i in range(m):
        best = A[i, 0]
        for j in range(1, A.shape[1]):
            if A[i, j] > best:
                best = A[i, j]
        out[i] = best
    return out


@gradc.export("f64(f64[:], f64[:])")
def dot_sig(a, b):
    acc = 0.0
    for i in range(len(a)):
        acc = acc + a[i] * b[i]
    return acc


@gradc.export("f64(f64[:], f64[:])")
def weighted_mean_sig(x, w):
    num = 0.0
    den = 0.0
    for i in range(len(x)):
        num += x[i] * w[i]
        den += w[i]
    return num / den


@gradc.export
def count_in_range_3d(T: i64[:, :, :], lo: i64, hi: i64) -> i64:
    c = 0
    for i in range(T.shape[0]):
        for j in range(T.shape[1]):
            for k in range(T.shape[2]):
                if lo <= T[i, j, k] <= hi:
                    c += 1
    return c


@gradc.export
def sum_contiguous(a: f64[::1]) -> f64:
    s = 0.0
    for i in range(len(a)):
        s += a[i] * (i + 1)
    return s


@gradc.export
def min_max_2d(A: f64[:, :]):
    lo = A[0, 0]
    hi = A[0, 0]
    for i in range(A.shape[0]):
        for j in range(A.shape[1]):
            v = A[i, j]
            lo = min(lo, v)
            hi = max(hi, v)
    return lo, hi


@gradc.export
def row_sums_f32(A: f32[:, :]) -> f32[:]:
    out = np.zeros(A.shape[0], dtype=np.float32)
    for i in range(A.shape[0]):
        for j in range(A.shape[1]):
            out[i] += A[i, j]
    return out


@gradc.export
def count_true_2d(M: boolean[:, :]) -> i64:
    c = 0
    for i in range(M.shape[0]):
        for j in range(M.shape[1]):
            if M[i, j]:
                c += 1
    return c
