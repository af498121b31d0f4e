"""``np.sort``/``np.argsort``/``np.median`` along any axis, ``a.sort()`` in place (views
too), stacked ``np.linalg.inv``/``solve``/``det`` with broadcast batch axes, and
``initial=`` of ``sum``/``prod`` (compiler/frontend/array_reorder.py, linalg_solve.py,
array_reductions.py) against NumPy in every layout.
"""

import numpy as np

import gradc
from gradc import f64, i64

SHAPES = {
    "sorted_axes": {"a": ("p", "m", "n"), "k": ("m", "n")},
    "sorted_in_place": {"a": ("m", "n"), "v": ("n",)},
    "stacked_systems": {"a": ("p", "n", "n"), "b": ("q", "n", "m"), "v": ("n",)},
    "sums_initial": {"a": ("m", "n"), "k": ("m", "n")},
}
DIMS = {"sorted_axes": {"p": (1, 3)}, "stacked_systems": {"p": (1, 3), "q": (1, 3)}}
#: batch axes p and q that do not broadcast (2 and 3)
RAISES = {"stacked_systems": "ValueError"}
ELEMENTS = {"sorted_axes": {"a": "any"}, "sorted_in_place": {"a": "any"}}
SUMMED = {"stacked_systems", "sums_initial"}
MUTATES = {"sorted_in_place": ("a", "v")}


@gradc.export
def sorted_axes(
    a: f64[:, :, :], k: i64[:, :]
) -> tuple[f64[:, :, :], i64[:, :, :], i64[:, :], f64[:, :], f64[:, :]]:
    return (
        np.sort(a, axis=0),
        np.argsort(a, axis=-2, kind="stable"),
        np.argsort(k, axis=0, kind="stable"),
        np.sort(k * 0.5, axis=0),
        np.median(a, axis=0),
    )


@gradc.export
def sorted_in_place(a: f64[:, :], v: f64[:]) -> None:
    a[:, ::-1].sort(axis=0)
    a.T.sort()
    v[1:].sort(kind="stable")


@gradc.export
def stacked_systems(
    a: f64[:, :, :], b: f64[:, :, :], v: f64[:]
) -> tuple[f64[:, :, :], f64[:], f64[:, :, :], f64[:, :]]:
    w = a + 100.0 * np.eye(a.shape[1])
    return (
        np.linalg.inv(w) * 100.0,
        np.linalg.det(w / 100.0),
        np.linalg.solve(w, b) * 100.0,
        np.linalg.solve(w, v) * 100.0,
    )


@gradc.export
def sums_initial(a: f64[:, :], k: i64[:, :], s: f64) -> tuple[f64, f64[:], f64[:, :], i64, i64[:]]:
    return (
        np.sum(a, initial=s),
        a.sum(axis=0, initial=2.5),
        np.prod(a * 0.1, axis=1, keepdims=True, initial=s),
        k.sum(initial=s),
        np.prod(k, axis=0, initial=-2),
    )
