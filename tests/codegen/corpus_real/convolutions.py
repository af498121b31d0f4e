"""Convolutions of real NumPy code: ``np.convolve`` in its three modes (a moving
average, a smoothing kernel, a discrete derivative), int and mixed-dtype operands, the
shorter operand first, NumPy's ValueError for an empty operand, and inf and NaN
elements (each spoils only the outputs it reaches, as in NumPy's loop).

Written for gradc's differential tests (never copied).
"""

import numpy as np

import gradc
from gradc import f64, i64

SHAPES = {
    "moving_average": {"x": ("n",)},
    "convolve_modes": {"a": ("n",), "v": ("m",)},
    "convolve_int": {"a": ("n",), "v": ("m",)},
    "convolve_mixed": {"a": ("n",), "v": ("m",)},
    "convolve_nonfinite": {"a": ("n",), "v": ("m",)},
}

DIMS = {"moving_average": {"n": (3, 8)}, "convolve_nonfinite": {"n": (2, 6), "m": (1, 5)}}

ELEMENTS = {"convolve_int": {"a": (-50, 50), "v": (-50, 50)}}

DOMAINS = {}

RAISES = {  # an empty operand
    "convolve_modes": "ValueError",
    "convolve_int": "ValueError",
    "convolve_mixed": "ValueError",
}

MUTATES = {}

ULP = set()

SUMMED = {"moving_average", "convolve_modes", "convolve_mixed", "convolve_nonfinite"}


@gradc.export
def moving_average(x: f64[:], w: i64) -> f64[:]:
    k = 1 + w % 3
    return np.convolve(x, np.ones(k) / k, mode="valid")


@gradc.export
def convolve_modes(a: f64[:], v: f64[:]) -> tuple[f64[:], f64[:], f64[:]]:
    return np.convolve(a, v), np.convolve(v, a, "same"), np.convolve(a[::-1], v, mode="valid")


@gradc.export
def convolve_int(a: i64[:], v: i64[:]) -> tuple[i64[:], i64[:]]:
    return np.convolve(a, v), np.convolve(v, a, mode="same")


@gradc.export
def convolve_mixed(a: f64[:], v: i64[:]) -> f64[:]:
    return np.convolve(v, a, "valid")


@gradc.export
def convolve_nonfinite(a: f64[:], v: f64[:]) -> tuple[f64[:], f64[:], f64[:]]:
    b = a.copy()
    b[0] = np.inf
    b[-1] = np.nan
    return np.convolve(b, v), np.convolve(v, b, "same"), np.convolve(b[::-1], v, mode="valid")
