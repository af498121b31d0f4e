"""NumPy's reductions differentiated: sum/prod/mean/var/std/max/min/norm/cumsum/cumprod as
functions and methods (and Python's sum/min/max of a vector), with ``axis=`` (int,
negative, tuple) and ``keepdims=``. Their derivatives come from the loops ``lower-arrays`` makes of them (docs/ad.md). Reductions
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
    "fused_sum": {"a": ("n",), "x": ("n",), "b": ("n",)},
    "centered": {"A": ("m", "n")},
    "gaussian": {"x": ("n",)},
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
    "fused_sum": {"n": (1, 5)},
    "centered": {"m": (1, 3), "n": (1, 3)},
    "gaussian": {"n": (2, 5)},
}
DOMAINS = {
    "sums_and_products": {"A": (0.5, 2.0)},
    "cumulative": {"a": (0.5, 1.5), "A": (0.5, 1.5)},
    "gaussian": {"sigma": (0.5, 2.0)},
}


def _gaps(a):
    # distinct elements: min/max/argmax do not jump
    v = np.sort(np.ravel(a))
    return tuple(v[1:] - v[:-1])


KINKS = {
    "extrema": lambda A: _gaps(A),
    "vector_norms": lambda x: (*x, *_gaps(np.abs(x)), *_gaps(x)),
    "standard_deviations": lambda a, A: (np.var(a), *np.var(A, axis=0), np.var(A)),
    "frobenius": lambda A: (np.sum(A * A),),
    "centered": lambda A: _gaps(A),
    "gaussian": lambda x, mu, sigma: (*_gaps((x - mu) ** 2), np.var(x)),
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
    norms = np.linalg.norm(x) * np.linalg.norm(x, 1) + np.linalg.norm(x, np.inf) * np.sum(x)
    return norms + sum(x) * max(x) - min(x)  # Python's builtins


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


@gradc.export
def fused_sum(a: f64[:], x: f64[:], b: f64[:]) -> f64:
    # the elementwise chain is computed inside the sums' loops (no temporary array)
    return np.sum(a * x + b) * np.sum(x * x) + np.mean(a * b - x) * 0.5


@gradc.export
def centered(A: f64[:, :]) -> f64:
    # broadcasting against reductions: (m, n) - (n,), (m, n) - (m, 1)
    d = A - A.mean(axis=0)
    return np.sum(d * d) + np.sum(np.exp(A - A.max(axis=1, keepdims=True)))


@gradc.export
def gaussian(x: f64[:], mu: f64, sigma: f64) -> f64:
    z = (x - mu) / sigma
    p = np.exp(-0.5 * z * z) / (sigma * np.sqrt(2.0 * np.pi))
    return np.sum(p * x) + p.max() + np.std(z)


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
d_fused_sum = gradc.grad(fused_sum, wrt=("a", "x", "b"))
t_fused_sum = gradc.jvp(fused_sum, wrt=("a", "x", "b"))
d_centered = gradc.grad(centered, wrt=("A",))
t_centered = gradc.jvp(centered, wrt=("A",))
d_gaussian = gradc.grad(gaussian, wrt=("x", "mu", "sigma"))
t_gaussian = gradc.jvp(gaussian, wrt=("x", "mu", "sigma"))
