"""NumPy's reductions as functions and methods: np.sum/prod/mean/var/std/min/max/amin/
amax/argmin/argmax/any/all/cumsum/cumprod and ``a.sum()`` ..., with ``axis=`` (an int,
negative, a tuple), ``keepdims=``, ``ddof=``, ``dtype=``; np.linalg.norm of vectors and
the Frobenius norm; reductions of reductions; Python's sum()/min()/max() of 1-D arrays
(CPython's order and NaN rules; sum() of an empty float array is 0.0 in gradc, the int 0
in CPython: never returned here, min() of it raises first).

Sums, means, variances and norms are SUMMED: gradc adds in another order than NumPy's
pairwise summation, so their floats compare within the harness's SUM_TOLERANCE.
Cumulative sums and products, min/max/argmin/argmax, and integer sums are exact: NumPy
accumulates them in order too (or the result does not depend on the order).

Means and variances need a non-empty reduced axis (NumPy warns "Mean of empty slice";
``ddof=1`` needs two elements): the exports take another branch for smaller shapes.
"""

import numpy as np

import gradc
from gradc import boolean, f32, f64, i32, i64

SHAPES = {
    "sum_all": {"a": ("m", "n")},
    "sum_axes_3d": {"a": ("p", "q", "r")},
    "sum_prod_int": {"a": ("m", "n")},
    "bools": {"m": ("p", "q")},
    "prod_f64": {"a": ("m", "n")},
    "mean_var_std": {"a": ("m", "n")},
    "min_max": {"a": ("m", "n")},
    "min_max_rows": {"a": ("m", "n")},
    "arg_min_max": {"a": ("m", "n")},
    "arg_min_max_rows": {"a": ("m", "n")},
    "min_max_int": {"a": ("n",)},
    "cumulative": {"a": ("m", "n")},
    "cumulative_int": {"a": ("m", "n")},
    "vector_norms": {"x": ("n",)},
    "vector_inf_norm": {"x": ("n",)},
    "frobenius": {"a": ("m", "n")},
    "with_dtype": {"a": ("m", "n")},
    "f32_reductions": {"a": ("m", "n")},
    "chained": {"a": ("p", "q", "r")},
    "int_sums": {"a": ("n",), "b": ("m",)},
    "builtins": {"a": ("n",), "b": ("k",), "m": ("p",)},
}
DIMS = {
    "with_dtype": {"n": (1, 6)},
}
ELEMENTS = {
    "min_max": {"a": "any"},
    "arg_min_max": {"a": "any"},
    # finite and bounded: Python's sum() of NumPy scalars overflows (or meets inf - inf)
    # with a FloatingPointError under the oracle's errstate (CI, 2026-12-02); NaN and
    # infinities for min/max are min_max's
    "builtins": {"a": (-1e300, 1e300)},
    "sum_prod_int": {"a": (-20, 20)},
    "prod_f64": {"a": (-3.0, 3.0)},
    "cumulative": {"a": (-3.0, 3.0)},
}
RAISES = {
    "min_max": "ValueError",
    "arg_min_max": "ValueError",
    "min_max_int": "ValueError",
    "builtins": "ValueError",
}
SUMMED = {
    "sum_all",
    "sum_axes_3d",
    "prod_f64",
    "mean_var_std",
    "vector_norms",
    "vector_inf_norm",
    "frobenius",
    "with_dtype",
    "f32_reductions",
    "chained",
}


@gradc.export
def sum_all(a: f64[:, :]) -> f64:
    return np.sum(a) + 2.0 * a.sum()


@gradc.export
def sum_axes_3d(a: f64[:, :, :]):
    return (
        np.sum(a, axis=0),
        a.sum(axis=-1),
        np.sum(a, axis=(0, 2)),
        a.sum(axis=(2, 0), keepdims=True),
        np.sum(a, (1,)),
        a.sum(axis=()),
    )


@gradc.export
def sum_prod_int(a: i32[:, :]):
    return np.sum(a), a.sum(axis=0), np.prod(a, axis=1), a.prod()


@gradc.export
def bools(m: boolean[:, :]):
    return (
        np.sum(m),
        m.sum(axis=1),
        np.any(m),
        m.all(axis=0),
        np.any(m, axis=(0, 1), keepdims=True),
        np.all(m),
        m.any(axis=-1),
    )


@gradc.export
def prod_f64(a: f64[:, :]):
    return np.prod(a), a.prod(axis=1), np.prod(a, axis=0, keepdims=True)


@gradc.export
def mean_var_std(a: f64[:, :]):
    if a.shape[0] < 2 or a.shape[1] < 2:  # ddof=1 needs two, the mean one element
        s = np.sum(a)
        return s, a.sum(axis=0), s, a.sum(axis=1), np.sum(a, axis=0, keepdims=True), s, a.sum(0)
    return (
        np.mean(a),
        a.mean(axis=0),
        np.var(a),
        a.var(axis=1, ddof=1),
        np.std(a, axis=0, keepdims=True),
        a.std(ddof=1),
        np.var(a, 0, None, None, 1),
    )


@gradc.export
def min_max(a: f64[:, :]):
    return np.min(a), a.max(), np.amin(a), np.amax(a, axis=None)


@gradc.export
def min_max_rows(a: f64[:, :]):
    # reduced axis 1: raises only when n == 0 (m == 0 gives empty results)
    if a.shape[1] == 0:
        return a.sum(axis=1), a.sum(axis=1, keepdims=True)
    return a.max(axis=1), np.amin(a, axis=-1, keepdims=True)


@gradc.export
def arg_min_max(a: f64[:, :]):
    return np.argmin(a), a.argmax(), np.argmax(a, keepdims=True)


@gradc.export
def arg_min_max_rows(a: f64[:, :]):
    if a.shape[0] == 0:
        return np.zeros(a.shape[1], dtype=np.int64), np.zeros((1, a.shape[1]), dtype=np.int64)
    return np.argmin(a, axis=0), a.argmax(axis=-2, keepdims=True)


@gradc.export
def min_max_int(a: i64[:]) -> tuple[i64, i64, i64, i64]:
    return a.min(), np.max(a), np.argmin(a), a.argmax(axis=0)


@gradc.export
def cumulative(a: f64[:, :]):
    return np.cumsum(a), a.cumsum(axis=0), np.cumprod(a, axis=1), a.cumprod(-2)


@gradc.export
def cumulative_int(a: i32[:, :]):
    return np.cumsum(a, axis=1), a.cumprod(), np.cumsum(a, dtype=np.float64)


@gradc.export
def vector_norms(x: f64[:]):
    return np.linalg.norm(x), np.linalg.norm(x, 1), np.linalg.norm(x, ord=2)


@gradc.export
def vector_inf_norm(x: f64[:]) -> f64:
    return np.linalg.norm(x, np.inf)


@gradc.export
def frobenius(a: f64[:, :]):
    return np.linalg.norm(a), np.linalg.norm(a, "fro"), np.linalg.norm(a, keepdims=True)


@gradc.export
def with_dtype(a: i32[:, :]):
    return (
        np.sum(a, dtype=np.float64),
        a.sum(axis=0, dtype=np.int32),
        np.prod(a, axis=1, dtype=float),
        a.mean(axis=1, dtype=np.float64),
    )


@gradc.export
def f32_reductions(a: f32[:, :]):
    if a.shape[0] == 0 or a.shape[1] == 0:
        return (
            np.sum(a, axis=0),
            a.sum(axis=1),
            a.sum(axis=0),
            np.sum(a, keepdims=True),
            np.sum(a, axis=1, keepdims=True),
            np.cumsum(a),
        )
    return (
        np.sum(a, axis=0),
        a.mean(axis=1),
        a.max(axis=0),
        np.linalg.norm(a, keepdims=True),
        np.var(a, axis=1, keepdims=True),
        np.cumsum(a),
    )


@gradc.export
def chained(a: f64[:, :, :]) -> f64:
    if a.shape[0] == 0 or a.shape[1] == 0 or a.shape[2] == 0:
        return np.sum(a, axis=1).sum()
    return np.sum(a, axis=1).max() + a.min(axis=(0, 1)).sum() + np.mean(np.max(a, axis=2))


@gradc.export
def int_sums(a: i64[:], b: i32[:]) -> i64:
    return np.sum(a) * 3 + b.sum() - np.prod(b)


@gradc.export
def builtins(a: f64[:], b: i32[:], m: boolean[:]):
    return sum(a), sum(b), sum(m), max(m), min(b), max(b), min(a), max(a)
