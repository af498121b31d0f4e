"""Numeric code in the style of TheAlgorithms and pyperformance's nbody (arrays of
positions and velocities): min-max normalisation, standardisation, cosine similarity,
a moving average through ``np.cumsum``, nbody energy and time steps, a polynomial on
``np.linspace`` by Horner's rule.

Written for gradc's differential tests (never copied from those projects).
"""

import numpy as np

import gradc
from gradc import f64, i64

SHAPES = {
    "min_max_normalize": {"data": ("n",)},
    "standardize": {"data": ("n",)},
    "cosine_similarity": {"a": ("n",), "b": ("n",)},
    "moving_average": {"a": ("n",)},
    "nbody_energy": {"pos": ("n", 3), "vel": ("n", 3), "mass": ("n",)},
    "nbody_advance": {"pos": ("n", 3), "vel": ("n", 3), "mass": ("n",)},
    "horner_linspace": {"c": ("k",)},
}

DIMS = {"moving_average": {"n": (1, 6)}, "cosine_similarity": {"n": (1, 6)}}

ELEMENTS = {
    # np.dot(a, b) / (norm(a) * norm(b)) of zero vectors: NumPy scalars give NaN, gradc's
    # f64 scalars raise ZeroDivisionError (gradc does not type NumPy scalars apart)
    "cosine_similarity": {"a": (0.5, 10.0), "b": (0.5, 10.0)},
    "nbody_energy": {"mass": (0.1, 2.0)},
    "nbody_advance": {"mass": (0.1, 2.0)},
}

DOMAINS = {
    "moving_average": {"n": (1, 3)},
    "nbody_advance": {"dt": (0.001, 0.01), "steps": (0, 3)},
    "horner_linspace": {"n": (0, 7)},
}

RAISES = {"min_max_normalize": "ValueError"}  # data.min() of an empty array

MUTATES = {"nbody_advance": ("pos", "vel")}

ULP = set()

SUMMED = {"standardize", "cosine_similarity", "nbody_energy", "nbody_advance"}
SUMMED |= {"moving_average", "horner_linspace"}


@gradc.export
def min_max_normalize(data: f64[:]) -> f64[:]:
    x_min = data.min()
    x_max = data.max()
    return (data - x_min) / (x_max - x_min)


@gradc.export
def standardize(data: f64[:]) -> f64[:]:
    mu = np.mean(data)
    sigma = np.std(data)
    return (data - mu) / sigma


@gradc.export
def cosine_similarity(a: f64[:], b: f64[:]) -> f64:
    return np.dot(a, b) / (np.linalg.norm(a) * np.linalg.norm(b))


@gradc.export
def moving_average(a: f64[:], n: i64) -> f64[:]:
    ret = np.cumsum(a)
    ret[n:] = ret[n:] - ret[:-n]
    return ret[n - 1 :] / n


@gradc.export
def nbody_energy(pos: f64[:, :], vel: f64[:, :], mass: f64[:]) -> f64:
    e = 0.5 * np.sum(mass * np.sum(vel**2, axis=1))
    n = len(mass)
    for i in range(n):
        d = pos[i + 1 :] - pos[i]
        r = np.sqrt(np.sum(d * d, axis=1))
        e -= np.sum(mass[i] * mass[i + 1 :] / r)
    return e


@gradc.export
def nbody_advance(pos: f64[:, :], vel: f64[:, :], mass: f64[:], dt: f64, steps: i64) -> None:
    n = len(mass)
    for s in range(steps):
        for i in range(n):
            d = pos[i] - pos[i + 1 :]
            dist2 = np.sum(d * d, axis=1)
            mag = dt / (dist2 * np.sqrt(dist2))
            vel[i] -= np.sum(d * (mass[i + 1 :] * mag)[:, np.newaxis], axis=0)
            vel[i + 1 :] += d * (mass[i] * mag)[:, np.newaxis]
        pos += dt * vel


@gradc.export
def horner_linspace(n: i64, c: f64[:]) -> f64[:]:
    x = np.linspace(-1.0, 1.0, n)
    y = np.zeros_like(x)
    for k in range(len(c)):
        y = y * x + c[k]
    return y + np.arange(n) * 0.5
