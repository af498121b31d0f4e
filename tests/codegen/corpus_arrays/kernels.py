"""Kernels: matvec (the issue's example), transposed matvec, matmul into ``np.zeros``,
outer products, 1-D and 2-D stencils, prefix sums in place, axpy, reversed copies with
negative indices, rotations, double buffering (``cur, nxt = nxt, cur``), reallocation in
a loop, a ping-pong between a borrowed argument and an owned buffer, 3-D kernels.

No math functions here: every float result must match CPython+NumPy bit for bit.
"""

import numpy as np

import gradc
from gradc import f64, i64

SHAPES = {
    "matvec": {"A": ("m", "n"), "x": ("n",)},
    "matvec_t": {"A": ("m", "n"), "x": ("m",)},
    "matmul": {"A": ("m", "k"), "B": ("k", "n")},
    "matmul_accumulate": {"A": ("m", "k"), "B": ("k", "n"), "C": ("m", "n")},
    "outer": {"a": ("m",), "b": ("n",)},
    "stencil3": {"a": ("n",)},
    "stencil3_contiguous": {"a": ("n",)},
    "prefix_sum_inplace": {"a": ("n",)},
    "prefix_sum_i64_inplace": {"a": ("n",)},
    "axpy_inplace": {"x": ("n",), "y": ("n",)},
    "scale_rows_inplace": {"A": ("m", "n"), "s": ("m",)},
    "transpose": {"A": ("m", "n")},
    "reverse_copy": {"a": ("n",)},
    "reverse_inplace": {"a": ("n",)},
    "suffix_max": {"a": ("n",)},
    "diff": {"a": ("n",)},
    "rotate": {"a": ("n",)},
    "jacobi_swap": {"a": ("n",)},
    "smooth_realloc": {"a": ("n",)},
    "pingpong_inplace": {"a": ("n",)},
    "batched_matvec": {"T": ("b", "m", "n"), "x": ("n",)},
    "transpose_3d": {"T": ("p", "q", "r")},
    "scale_3d_inplace": {"T": ("p", "q", "r")},
    "cumsum_rows": {"A": ("m", "n")},
    "laplacian_2d": {"A": ("m", "n")},
    "running_max_i64": {"a": ("n",)},
}

ELEMENTS = {}

DIMS = {}

DOMAINS = {
    "rotate": {"k": (-8, 8)},
    "jacobi_swap": {"steps": (0, 5)},
    "smooth_realloc": {"steps": (0, 5)},
    "pingpong_inplace": {"steps": (0, 5)},
}

RAISES = {
    "rotate": "IndexError",  # i - k outside [-n, n)
}

MUTATES = {
    "matmul_accumulate": ("C",),
    "prefix_sum_inplace": ("a",),
    "prefix_sum_i64_inplace": ("a",),
    "axpy_inplace": ("y",),
    "scale_rows_inplace": ("A",),
    "reverse_inplace": ("a",),
    "pingpong_inplace": ("a",),
    "scale_3d_inplace": ("T",),
}

ULP = set()


@gradc.export
def matvec(A: f64[:, :], x: f64[:]) -> f64[:]:
    m, n = A.shape
    y = np.zeros(m)
    for i in range(m):
        acc = 0.0
        for j in range(n):
            acc += A[i, j] * x[j]
        y[i] = acc
    return y


@gradc.export
def matvec_t(A: f64[:, :], x: f64[:]) -> f64[:]:
    m, n = A.shape
    y = np.zeros(n)
    for i in range(m):
        for j in range(n):
            y[j] += A[i, j] * x[i]
    return y


@gradc.export
def matmul(A: f64[:, :], B: f64[:, :]) -> f64[:, :]:
    m, k = A.shape
    n = B.shape[1]
    C = np.zeros((m, n))
    for i in range(m):
        for j in range(n):
            acc = 0.0
            for p in range(k):
                acc += A[i, p] * B[p, j]
            C[i, j] = acc
    return C


@gradc.export
def matmul_accumulate(A: f64[:, :], B: f64[:, :], C: f64[:, :]) -> None:
    for i in range(C.shape[0]):
        for p in range(A.shape[1]):
            a = A[i, p]
            for j in range(C.shape[1]):
                C[i, j] += a * B[p, j]


@gradc.export
def outer(a: f64[:], b: f64[:]) -> f64[:, :]:
    out = np.empty((len(a), len(b)))
    for i in range(len(a)):
        for j in range(len(b)):
            out[i, j] = a[i] * b[j]
    return out


@gradc.export
def stencil3(a: f64[:]) -> f64[:]:
    n = len(a)
    out = np.empty(n)
    if n > 0:
        out[0] = a[0]
        out[n - 1] = a[n - 1]
    for i in range(1, n - 1):
        out[i] = 0.25 * a[i - 1] + 0.5 * a[i] + 0.25 * a[i + 1]
    return out


@gradc.export
def stencil3_contiguous(a: f64[::1]) -> f64[::1]:
    n = len(a)
    out = np.zeros(n)
    for i in range(1, n - 1):
        out[i] = a[i - 1] - 2.0 * a[i] + a[i + 1]
    return out


@gradc.export
def prefix_sum_inplace(a: f64[:]) -> None:
    for i in range(1, len(a)):
        a[i] += a[i - 1]


@gradc.export
def prefix_sum_i64_inplace(a: i64[:]) -> None:
    for i in range(1, len(a)):
        a[i] = a[i] + a[i - 1]


@gradc.export
def axpy_inplace(alpha: f64, x: f64[:], y: f64[:]) -> None:
    for i in range(len(x)):
        y[i] += alpha * x[i]


@gradc.export
def scale_rows_inplace(A: f64[:, :], s: f64[:]) -> None:
    for i in range(A.shape[0]):
        for j in range(A.shape[1]):
            A[i, j] *= s[i]


@gradc.export
def transpose(A: f64[:, :]) -> f64[:, :]:
    m, n = A.shape
    out = np.empty((n, m))
    for i in range(m):
        for j in range(n):
            out[j, i] = A[i, j]
    return out


@gradc.export
def reverse_copy(a: f64[:]) -> f64[:]:
    n = len(a)
    out = np.empty(n)
    for i in range(n):
        out[i] = a[-1 - i]
    return out


@gradc.export
def reverse_inplace(a: f64[:]) -> None:
    n = len(a)
    for i in range(n // 2):
        a[i], a[-1 - i] = a[-1 - i], a[i]


@gradc.export
def suffix_max(a: f64[:]) -> f64[:]:
    n = len(a)
    out = np.empty(n)
    best = 0.0
    for k in range(1, n + 1):
        if k == 1 or a[-k] > best:
            best = a[-k]
        out[-k] = best
    return out


@gradc.export
def diff(a: f64[:]) -> f64[:]:
    m = len(a) - 1 if len(a) > 0 else 0
    out = np.empty(m)
    for i in range(m):
        out[i] = a[i + 1] - a[i]
    return out


@gradc.export
def rotate(a: f64[:], k: i64) -> f64[:]:
    # a[i - k] with Python's negative indices; IndexError when i - k < -n or >= n
    n = len(a)
    out = np.zeros(n)
    for i in range(n):
        out[i] = a[i - k]
    return out


@gradc.export
def jacobi_swap(a: f64[:], steps: i64) -> f64[:]:
    n = len(a)
    cur = a.copy()
    nxt = np.empty_like(a)
    for _ in range(steps):
        for i in range(n):
            left = cur[i - 1] if i > 0 else cur[i]
            right = cur[i + 1] if i < n - 1 else cur[i]
            nxt[i] = (left + cur[i] + right) / 3.0
        cur, nxt = nxt, cur
    return cur


@gradc.export
def smooth_realloc(a: f64[:], steps: i64) -> f64[:]:
    n = len(a)
    y = a.copy()
    for s in range(steps):
        z = np.zeros(n)
        for i in range(n):
            z[i] = 0.5 * y[i] + 0.25 * y[i - 1] + 0.25 * s
        y = z
    return y


@gradc.export
def pingpong_inplace(a: f64[:], steps: i64) -> f64:
    # src and dst alternate between the caller's array and an owned buffer
    n = len(a)
    src = a
    dst = np.zeros(n)
    for s in range(steps):
        for i in range(n):
            dst[i] = src[i] * 0.5 + s
        src, dst = dst, src
    total = 0.0
    for v in src:
        total += v
    return total


@gradc.export
def batched_matvec(T: f64[:, :, :], x: f64[:]) -> f64[:, :]:
    b, m, n = T.shape
    out = np.zeros((b, m))
    for k in range(b):
        for i in range(m):
            acc = 0.0
            for j in range(n):
                acc += T[k, i, j] * x[j]
            out[k, i] = acc
    return out


@gradc.export
def transpose_3d(T: f64[:, :, :]) -> f64[:, :, :]:
    p, q, r = T.shape
    out = np.zeros((r, q, p))
    for i in range(p):
        for j in range(q):
            for k in range(r):
                out[k, j, i] = T[i, j, k]
    return out


@gradc.export
def scale_3d_inplace(T: f64[:, :, :], s: f64) -> None:
    for i in range(T.shape[0]):
        for j in range(T.shape[1]):
            for k in range(T.shape[2]):
                T[i, j, k] *= s


@gradc.export
def cumsum_rows(A: f64[:, :]) -> f64[:, :]:
    out = A.copy()
    for i in range(out.shape[0]):
        for j in range(1, out.shape[1]):
            out[i, j] += out[i, j - 1]
    return out


@gradc.export
def laplacian_2d(A: f64[:, :]) -> f64[:, :]:
    m, n = A.shape
    out = np.zeros((m, n))
    for i in range(1, m - 1):
        for j in range(1, n - 1):
            out[i, j] = A[i - 1, j] + A[i + 1, j] + A[i, j - 1] + A[i, j + 1] - 4.0 * A[i, j]
    return out


@gradc.export
def running_max_i64(a: i64[:]) -> i64[:]:
    n = len(a)
    out = np.zeros(n, dtype=np.int64)
    for i in range(n):
        if i == 0 or a[i] > out[i - 1]:
            out[i] = a[i]
        else:
            out[i] = out[i - 1]
    return out
