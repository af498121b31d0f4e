"""Real numeric Python differentiated (issue 11's new-user trial; the same functions as
tests/codegen/corpus_real/): the issue's gaussian_loss, dpbench's l2 distance, cosine
similarity and mean squared error, a field on ``np.meshgrid``'s grids. The cheap ones to compile: run by default
(tests/ad/test_ad_real.py); kernels.py holds the rest (slow). Written for gradc's tests,
never copied.
"""

import numpy as np

import gradc
from gradc import f64

SHAPES = {
    "gaussian_loss": {"x": ("n",), "w": ("m", "n")},
    "l2_distance": {"a": ("m", "n"), "b": ("m", "n")},
    "cosine_similarity": {"a": ("n",), "b": ("n",)},
    "mse": {"labels": ("n",), "predictions": ("n",)},
    "upper_rows_energy": {"A0": ("n", "n")},
    "logaddexp_flip": {"w": ("n",), "x": ("n",)},
    "meshgrid_field": {"x": ("n",), "y": ("m",)},
}

DIMS = {
    "gaussian_loss": {"n": (2, 4), "m": (1, 3)},
    "l2_distance": {"m": (1, 2), "n": (1, 3)},
    "cosine_similarity": {"n": (1, 4)},
    "mse": {"n": (1, 4)},
    "upper_rows_energy": {"n": (1, 3)},
    "logaddexp_flip": {"n": (1, 4)},
    "meshgrid_field": {"n": (1, 3), "m": (1, 3)},
}

DOMAINS = {
    "gaussian_loss": {"sigma": (0.5, 2.0), "mu": (-1.0, 1.0)},
    "cosine_similarity": {"a": (0.5, 2.0), "b": (0.5, 2.0)},
}

KINKS = {
    # p.max(): the largest density must be unique; sqrt of the squared distance at 0
    "gaussian_loss": lambda x, mu, sigma, w: _gaps(-np.abs(x - mu)),
    "l2_distance": lambda a, b: (np.sum((a - b) ** 2),),
}


def _gaps(v):
    s = np.sort(v)
    return tuple(s[-1] - s[:-1])


@gradc.export
def gaussian_loss(x: f64[:], mu: f64, sigma: f64, w: f64[:, :]) -> f64:
    z = (x - mu) / sigma
    p = np.exp(-0.5 * z * z) / (sigma * np.sqrt(2.0 * np.pi))
    h = np.tanh(w @ p)
    return np.sum(h[1:] - h[:-1]) + p.max()


@gradc.export
def l2_distance(a: f64[:, :], b: f64[:, :]) -> f64:
    return np.sqrt(np.sum(np.square(a - b)))


@gradc.export
def cosine_similarity(a: f64[:], b: f64[:]) -> f64:
    return np.dot(a, b) / (np.linalg.norm(a) * np.linalg.norm(b))


@gradc.export
def mse(labels: f64[:], predictions: f64[:]) -> f64:
    return np.sum((labels - predictions) ** 2) / len(labels)


d_gaussian_loss = gradc.grad(gaussian_loss, wrt=("x", "mu", "sigma", "w"))

t_gaussian_loss = gradc.jvp(gaussian_loss, wrt=("x", "mu", "sigma", "w"))

d_l2_distance = gradc.grad(l2_distance, wrt=("a", "b"))

t_l2_distance = gradc.jvp(l2_distance, wrt=("a", "b"))

d_cosine_similarity = gradc.grad(cosine_similarity, wrt=("a", "b"))

t_cosine_similarity = gradc.jvp(cosine_similarity, wrt=("a", "b"))

d_mse = gradc.grad(mse, wrt=("labels", "predictions"))

t_mse = gradc.jvp(mse, wrt=("labels", "predictions"))


@gradc.export
def upper_rows_energy(A0: f64[:, :]) -> f64:
    # regression: the view C[i, i:] is written in a loop, and C = np.zeros(...) follows
    # an elementwise expression that lower-arrays makes loops of (the reverse sweep met
    # the view before C's shadow existed and refused it)
    A = A0 * 2.0
    C = np.zeros((A.shape[0], A.shape[0]))
    for i in range(A.shape[0]):
        C[i, i:] = A[i, i:] * A[i, i]
    return np.sum(C * C)


d_upper_rows_energy = gradc.grad(upper_rows_energy, wrt=("A0",))
t_upper_rows_energy = gradc.jvp(upper_rows_energy, wrt=("A0",))


@gradc.export
def logaddexp_flip(w: f64[:], x: f64[:]) -> f64:
    # issue 11, round 2: np.logaddexp (ties w == flip(w) included), np.flip, np.multiply
    z = np.multiply(w, np.flip(x))
    return np.sum(np.logaddexp(0.0, -z)) + np.sum(np.logaddexp(w, np.flip(w)))


d_logaddexp_flip = gradc.grad(logaddexp_flip, wrt=("w", "x"))
t_logaddexp_flip = gradc.jvp(logaddexp_flip, wrt=("w", "x"))


@gradc.export
def meshgrid_field(x: f64[:], y: f64[:], s: f64) -> f64:
    X, Y = np.meshgrid(x, y)
    P, Q = np.meshgrid(x, y * s, indexing="ij")
    return np.sum(np.sin(X) * Y * Y) + np.sum(P * np.cos(Q))


d_meshgrid_field = gradc.grad(meshgrid_field, wrt=("x", "y", "s"))
t_meshgrid_field = gradc.jvp(meshgrid_field, wrt=("x", "y", "s"))
