"""Repetition and polynomials in real NumPy code: ``np.repeat``/``np.tile`` of 1-D
arrays (upsampling, building design matrices; zero and variable counts, int and float
arrays, strided views), ``np.polyval`` with literal coefficients (a calibration curve, an
int polynomial, infinities among the inputs, a float32 x: float64 as NumPy's, whose
coefficients are np.asarray(p)'s NumPy scalars).

Written for gradc's differential tests (never copied).
"""

import numpy as np

import gradc
from gradc import f32, f64, i64

SHAPES = {
    "upsample": {"x": ("n",)},
    "tile_int": {"a": ("n",)},
    "calibration": {"x": ("n",)},
    "int_poly": {"a": ("n",)},
    "poly_f32": {"x": ("n",)},
}

DIMS = {}

ELEMENTS = {"calibration": {"x": "any"}, "int_poly": {"a": (-100, 100)}}

DOMAINS = {}

RAISES = {"upsample": "ValueError"}  # a negative count

MUTATES = {}

ULP = set()

SUMMED = set()


@gradc.export
def upsample(x: f64[:], k: i64) -> tuple[f64[:], f64[:]]:
    return np.repeat(x, k % 4), np.tile(x[::-1], k) * 2.0


@gradc.export
def tile_int(a: i64[:], k: i64) -> tuple[i64[:], i64[:]]:
    return np.tile(a, k % 3), np.repeat(a[::2], 2)


@gradc.export
def calibration(x: f64[:], s: f64) -> tuple[f64[:], f64]:
    return np.polyval([0.5, -1.25, 3.0], x), np.polyval((s, 2.0, 1.0, -4.0), s)


@gradc.export
def int_poly(a: i64[:]) -> tuple[i64[:], f64[:]]:
    return np.polyval([2, -3, 1], a), np.polyval([1.5, 2], a)


@gradc.export
def poly_f32(x: f32[:]) -> tuple[f64[:], f64[:]]:
    return np.polyval([0.1, -0.3, 2.0], x), np.polyval((3, 1), x[::-1])
