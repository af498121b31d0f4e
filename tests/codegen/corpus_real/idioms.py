"""Idioms that users of Numba and JAX write around the kernels: iterating over rows,
``enumerate``/``zip`` over arrays, ``A.T @ A``, tuple axes, ``[..., None]`` broadcasting,
``np.var(ddof=1)``, ``np.cumprod``, ``np.clip``, ``astype``, ``np.any``/``np.all``,
float32 code, ``np.linspace``/``np.arange``, ``np.concatenate``/``vstack``/``hstack``,
negative-step slice assignment, integer-array indexing, defaulted parameters, an
f-string ``raise``, vectorised k-means labels.

Written for gradc's differential tests (never copied).
"""

import math

import numpy as np

import gradc
from gradc import f32, f64, i64

SHAPES = {
    "black_scholes_numba": {"S": ("n",), "X": ("n",), "T": ("n",)},
    "masked_sum_prod": {"x": ("n",)},
    "norms_and_powers": {"x": ("n",)},
    "astype_int": {"x": ("n",)},
    "axis_tuple": {"A": ("p", "q", "r")},
    "bool_any": {"x": ("n",)},
    "concat": {"a": ("m",), "b": ("n",)},
    "default": {"a": ("n",)},
    "ellipsis": {"x": ("m", "n")},
    "enumerate_dot": {"a": ("n",)},
    "f32": {"a": ("n",)},
    "fstring": {"a": ("m", "k"), "b": ("n",)},
    "gram": {"A": ("m", "n")},
    "inner_trace": {"A": ("m", "n"), "x": ("n",)},
    "int_index": {"x": ("n",), "idx": ("k",)},
    "kmeans_vec": {"X": ("n", "d"), "C": ("k", "d")},
    "matvec_loop_views": {"A": ("m", "n"), "x": ("n",)},
    "mean_i64": {"a": ("m", "n")},
    "neg_step_assign": {"x": ("n",)},
    "rows_iter": {"A": ("m", "n")},
    "softmax_none": {"x": ("m", "n")},
    "stack": {"a": ("n",), "b": ("n",)},
    "tuple_return": {"x": ("n",)},
    "var_ddof": {"x": ("n",)},
    "zip_dot": {"a": ("n",), "b": ("n",)},
}

DIMS = {"kmeans_vec": {"k": (1, 4)}, "mean_i64": {"n": (1, 6)}}

ELEMENTS = {
    "black_scholes_numba": {"S": (5.0, 50.0), "X": (5.0, 50.0), "T": (0.1, 2.0)},
    "int_index": {"idx": (-7, 7)},
    "f32": {"a": (-10.0, 10.0)},
}

DOMAINS = {
    "black_scholes_numba": {"r": (0.01, 0.1), "v": (0.05, 0.5)},
    "arange_linspace": {"n": (0, 9)},
    "f32": {"s": (0.0, 5.0)},
}

RAISES = {
    "fstring": "ValueError",
    "default": "ValueError",  # max of an empty array
    "int_index": "IndexError",
    "softmax_none": "ValueError",  # max over a 0-length axis
    "tuple_return": "ValueError",  # min of an empty array
    "var_ddof": "IndexError",  # cumprod(...)[-1] of an empty array
}

MUTATES = {}

ULP = {"f32", "arange_linspace", "norms_and_powers"}

SUMMED = {"gram", "inner_trace", "fstring", "matvec_loop_views", "softmax_none", "var_ddof"}
SUMMED |= {"black_scholes_numba", "masked_sum_prod", "norms_and_powers"}
SUMMED |= {"rows_iter", "axis_tuple", "kmeans_vec", "stack"}


@gradc.export
def arange_linspace(n: i64) -> f64[:]:
    x = np.linspace(0.0, 1.0, n, endpoint=False)
    return np.sin(2 * np.pi * x) + np.arange(0, n, 1) * 0.0


@gradc.export
def astype_int(x: f64[:]) -> i64[:]:
    return np.floor(x * 10).astype(np.int64) % 7


@gradc.export
def axis_tuple(A: f64[:, :, :]) -> f64[:]:
    return np.sum(A, axis=(0, 1))


@gradc.export
def bool_any(x: f64[:]) -> bool:
    return np.any(np.isnan(x)) or bool(np.all(x > 0))


@gradc.export
def concat(a: f64[:], b: f64[:]) -> f64[:]:
    c = np.concatenate((a, b))
    return np.cumsum(c)[::-1]


@gradc.export
def default(a: f64[:], eps: f64 = 1e-8) -> f64[:]:
    return a / (np.abs(a).max() + eps)


@gradc.export
def ellipsis(x: f64[:, :]) -> f64[:, :, :]:
    return x[..., None] * x[:, None, :]


@gradc.export
def enumerate_dot(a: f64[:]) -> f64:
    s = 0.0
    for i, v in enumerate(a):
        s += i * v
    return s


@gradc.export
def f32(a: f32[:], s: f32) -> f32[:]:
    return np.sqrt(a * a + s) * np.float32(0.5)


@gradc.export
def fstring(a: f64[:, :], b: f64[:]) -> f64[:]:
    if a.shape[1] != b.shape[0]:
        raise ValueError(f"shape mismatch: {a.shape[1]} != {b.shape[0]}")
    return a @ b


@gradc.export
def gram(A: f64[:, :]) -> f64[:, :]:
    return A.T @ A


@gradc.export
def inner_trace(A: f64[:, :], x: f64[:]) -> f64:
    return np.trace(A) + np.inner(x, x) + np.outer(x, x).sum()


@gradc.export
def int_index(x: f64[:], idx: i64[:]) -> f64[:]:
    return x[idx]


@gradc.export
def kmeans_vec(X: f64[:, :], C: f64[:, :]) -> i64[:]:
    dist = np.sum((X[:, None, :] - C[None, :, :]) ** 2, axis=2)
    return np.argmin(dist, axis=1)


@gradc.export
def matvec_loop_views(A: f64[:, :], x: f64[:]) -> f64[:]:
    out = np.empty(A.shape[0])
    for i in range(A.shape[0]):
        out[i] = A[i] @ x
    return out


@gradc.export
def mean_i64(a: i64[:, :]) -> f64[:]:
    return a.mean(axis=1) + a.sum(axis=1) // 2


@gradc.export
def neg_step_assign(x: f64[:]) -> f64[:]:
    y = np.zeros(len(x))
    y[::-1] = x
    y[1::2] += x[: len(x) // 2]
    return y


@gradc.export
def rows_iter(A: f64[:, :]) -> f64:
    s = 0.0
    for row in A:
        s += np.sum(row * row)
    return s


@gradc.export
def softmax_none(x: f64[:, :]) -> f64[:, :]:
    e = np.exp(x - x.max(axis=1)[:, None])
    return e / e.sum(axis=1)[:, None]


@gradc.export
def stack(a: f64[:], b: f64[:]) -> f64[:, :]:
    return np.vstack((a, b)).T @ np.ones(2)[:, None] + np.hstack((a, b))[: a.shape[0], None]


@gradc.export
def tuple_return(x: f64[:]) -> tuple[f64, f64]:
    return x.min(), x.argmax() * 1.0


@gradc.export
def var_ddof(x: f64[:]) -> f64:
    return np.var(x, ddof=1) + np.cumprod(np.clip(x, -1.0, 1.0))[-1]


@gradc.export
def zip_dot(a: f64[:], b: f64[:]) -> f64:
    s = 0.0
    for x, y in zip(a, b):
        s += x * y
    return s


def cnd(d):
    return 0.5 * (1.0 + math.erf(d / math.sqrt(2.0)))


@gradc.export
def black_scholes_numba(S: f64[:], X: f64[:], T: f64[:], r: f64, v: f64) -> f64[:]:
    call = np.empty(len(S))
    for i in range(len(S)):
        sqrt_t = math.sqrt(T[i])
        d1 = (math.log(S[i] / X[i]) + (r + 0.5 * v * v) * T[i]) / (v * sqrt_t)
        d2 = d1 - v * sqrt_t
        call[i] = S[i] * cnd(d1) - X[i] * math.exp(-r * T[i]) * cnd(d2)
    return call


@gradc.export
def masked_sum_prod(x: f64[:]) -> f64:
    return x[x > 0].sum() + np.prod(x / 10.0) + x.size * x.ndim


@gradc.export
def norms_and_powers(x: f64[:]) -> f64[:]:
    scale = np.linalg.norm(x, 1) + np.linalg.norm(x, np.inf) + np.linalg.norm(x)
    y = np.abs(x) ** 1.5 + np.sign(x) * np.fmax(x, 0.1) + np.hypot(x, 1.0)
    return y + np.arctan2(x, 2.0) + np.deg2rad(x) + scale
