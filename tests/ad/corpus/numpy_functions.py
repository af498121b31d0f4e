"""``np.diff``, ``a.clip(lo, hi)``, ``np.linalg.norm(x, ord, axis=...)`` and
``np.full(n, x, dtype=...)`` differentiated (compiler/frontend/array_functions.py,
compiler/infer/reductions.py): views and ufuncs whose rules exist already, checked here
as whole functions. Clip bounds and the 1- and inf-norms keep away from their kinks
(KINKS).
"""

import numpy as np

import gradc
from gradc import f64, i64

SHAPES = {
    "differences": {"a": ("n",), "A": ("m", "n")},
    "clipped": {"A": ("m", "n")},
    "norms_along_axes": {"A": ("m", "n")},
    "filled": {"a": ("n",)},
}
DIMS = {
    "differences": {"n": (2, 4), "m": (2, 3)},
    "clipped": {"m": (1, 3), "n": (1, 3)},
    "norms_along_axes": {"m": (1, 3), "n": (1, 3)},
    "filled": {"n": (1, 4)},
}
DOMAINS = {"norms_along_axes": {"A": (0.5, 2.0)}, "clipped": {"lo": (-1.0, -0.2)}}


def _gaps(a):
    v = np.sort(np.ravel(a))
    return tuple(v[1:] - v[:-1])


KINKS = {
    "clipped": lambda A, lo, hi: (*np.ravel(A - lo), *np.ravel(A - hi), *np.ravel(A + 0.5)),
    "norms_along_axes": lambda A: _gaps(A),
    "filled": lambda a, s, n: (s,),
}


@gradc.export
def differences(a: f64[:], A: f64[:, :], s: f64) -> f64:
    d = np.diff(a * s)
    return np.sum(d * d) + np.sum(np.diff(A, axis=0) * np.diff(A)[0, 0]) + np.sum(np.diff(A.T))


@gradc.export
def clipped(A: f64[:, :], lo: f64, hi: f64) -> f64:
    return np.sum(A.clip(lo, hi) * A) + np.sum(A.T.clip(min=-0.5, max=hi))


@gradc.export
def norms_along_axes(A: f64[:, :]) -> f64:
    return (
        np.sum(np.linalg.norm(A, axis=1, keepdims=True) * np.linalg.norm(A, 1, axis=0))
        + np.sum(np.linalg.norm(A, np.inf, axis=0))
        + np.linalg.norm(A, "fro", axis=(0, 1))
    )


@gradc.export
def filled(a: f64[:], s: f64, n: i64) -> f64:
    t = np.full_like(a, s) * a + np.full(a.shape[0], s)
    return np.sum(t * np.full(a.shape[0], s > 0.0, dtype=float))


d_differences = gradc.grad(differences, wrt=("a", "A", "s"))
t_differences = gradc.jvp(differences, wrt=("a", "A", "s"))
d_clipped = gradc.grad(clipped, wrt=("A", "lo", "hi"))
t_clipped = gradc.jvp(clipped, wrt=("A", "lo", "hi"))
d_norms_along_axes = gradc.grad(norms_along_axes, wrt=("A",))
t_norms_along_axes = gradc.jvp(norms_along_axes, wrt=("A",))
d_filled = gradc.grad(filled, wrt=("a", "s"))
t_filled = gradc.jvp(filled, wrt=("a", "s"))
