"""NumPy's reductions differentiated: sum/prod/mean/var/std/max/min/norm/cumsum/cumprod as
functions and methods, with ``axis=`` (int, negative, tuple) and ``keepdims=``. Their
derivatives come from the loops ``lower-arrays`` makes of them (docs/ad.md). Reductions
of reductions (a product of column sums) make the gradients depend on the axes without
any elementwise arithmetic. Max/min and the 1- and inf-norms keep their inputs away
from ties and zeros (KINKS).

var/std/norm are called as functions (the dual-number oracle shims ``np.var``, not the
method of object arrays).
"""

import numpy as np

import gradc
from gradc import f64

SHAPES = {
    "sums_and_products": {"A": ("m", "n")},
    "sum_tuple_axes": {"T": ("p", "m", "n")},
    "means_and_variances": {"A": ("m", "n")},
    "standard_deviations": {"a": ("n",), "A": ("m", "n")},
    "extrema": {"A": ("m", "n")},
    "vector_norms": {"x": ("n",)},
    "frobenius": {"A": ("m", "n")},
    "cumulative": {"a": ("n",), "A": ("m", "n")},
}
DIMS = {
    "sums_and_products": {"m": (1, 3), "n": (1, 3)},
    "sum_tuple_axes": {"p": (1, 2), "m": (1, 2), "n": (1, 3)},
    "means_and_variances": {"m": (2, 3), "n": (1, 3)},
    "standard_deviations": {"n": (2, 5), "m": (2, 3)},
    "extrema": {"m": (1, 3), "n": (1, 3)},
    "vector_norms": {"n": (1, 5)},
    "frobenius": {"m": (1, 3), "n": (1, 3)},
    "cumulative": {"n": (1, 5), "m": (1, 2)},
}
DOMAINS = {
    "sums_and_products": {"A": (0.5, 2.0)},
    "cumulative": {"a": (0.5, 1.5), "A": (0.5, 1.5)},
}


def _gaps(a):
    # distinct elements: min/max/argmax do not jump
    v = np.sort(np.ravel(a))
    return tuple(v[1:] - v[:-1])


KINKS = {
    "extrema": lambda A: _gaps(A),
    "vector_norms": lambda x: (*x, *_gaps(np.abs(x))),
    "standard_deviations": lambda a, A: (np.var(a), *np.var(A, axis=0), np.var(A)),
    "frobenius": lambda A: (np.sum(A * A),),
}


@gradc.export
def sums_and_products(A: f64[:, :]) -> f64:
    cols = np.sum(A, axis=0)
    rows = A.prod(axis=-1, keepdims=True)
    return np.prod(cols) + np.sum(rows) * A.sum() + np.prod(np.sum(A, axis=1))


@gradc.export
def sum_tuple_axes(T: f64[:, :, :]) -> f64:
    s = np.sum(T, axis=(0, 2))
    k = T.sum(axis=(-1, 0), keepdims=True)
    return np.prod(s) * np.prod(k) + np.mean(T)


@gradc.export
def means_and_variances(A: f64[:, :]) -> f64:
    return (
        np.mean(A) * np.var(A)
        + np.prod(np.var(A, axis=0, ddof=1))
        + np.sum(np.var(A, axis=1, keepdims=True))
        + np.prod(A.mean(axis=1))
    )


@gradc.export
def standard_deviations(a: f64[:], A: f64[:, :]) -> f64:
    return np.std(a) * np.mean(a) + np.std(a, ddof=1) + np.sum(np.std(A, axis=0)) + np.std(A)


@gradc.export
def extrema(A: f64[:, :]) -> f64:
    return (
        np.max(A) * A.min()
        + np.sum(A.max(axis=1))
        + np.prod(np.min(A, axis=0, keepdims=True))
        + np.amax(A, axis=-1).sum() * np.amin(A)
    )


@gradc.export
def vector_norms(x: f64[:]) -> f64:
    return np.linalg.norm(x) * np.linalg.norm(x, 1) + np.linalg.norm(x, np.inf) * np.sum(x)


@gradc.export
def frobenius(A: f64[:, :]) -> f64:
    return np.linalg.norm(A) * np.sum(A) + np.sum(np.linalg.norm(A, "fro", keepdims=True))


@gradc.export
def cumulative(a: f64[:], A: f64[:, :]) -> f64:
    return (
        np.prod(np.cumsum(a))
        + np.sum(a.cumprod())
        + np.prod(np.cumsum(A, axis=0))
        + np.prod(A.cumsum(axis=-1))
        + np.sum(np.cumprod(A))
    )


d_sums_and_products = gradc.grad(sums_and_products, wrt=("A",))
t_sums_and_products = gradc.jvp(sums_and_products, wrt=("A",))
d_sum_tuple_axes = gradc.grad(sum_tuple_axes, wrt=("T",))
t_sum_tuple_axes = gradc.jvp(sum_tuple_axes, wrt=("T",))
d_means_and_variances = gradc.grad(means_and_variances, wrt=("A",))
t_means_and_variances = gradc.jvp(means_and_variances, wrt=("A",))
d_standard_deviations = gradc.grad(standard_deviations, wrt=("a", "A"))
t_standard_deviations = gradc.jvp(standard_deviations, wrt=("a", "A"))
d_extrema = gradc.grad(extrema, wrt=("A",))
t_extrema = gradc.jvp(extrema, wrt=("A",))
d_vector_norms = gradc.grad(vector_norms, wrt=("x",))
t_vector_norms = gradc.jvp(vector_norms, wrt=("x",))
d_frobenius = gradc.grad(frobenius, wrt=("A",))
t_frobenius = gradc.jvp(frobenius, wrt=("A",))
d_cumulative = gradc.grad(cumulative, wrt=("a", "A"))
t_cumulative = gradc.jvp(cumulative, wrt=("a", "A"))
