"""Grids and tolerance checks of real NumPy code: ``np.meshgrid`` (both indexings, a
float and an int grid, strided views), ``np.isclose``/``np.allclose`` (default and
given tolerances, ``equal_nan``, int and f32 operands, infinities and NaN among the
inputs), ``np.column_stack`` of 1-D arrays (a design matrix), as convergence
tests, plotting grids and regressions write them.

Written for gradc's differential tests (never copied).
"""

import numpy as np

import gradc
from gradc import f32, f64, i64

SHAPES = {
    "gaussian_grid": {"x": ("n",), "y": ("m",)},
    "grid_ij_int": {"a": ("n",), "b": ("m",)},
    "grid_view": {"A": ("m", "n"), "y": ("k",)},
    "close_checks": {"a": ("n",), "b": ("n",)},
    "close_f32": {"a": ("n",), "b": ("n",)},
    "close_int": {"a": ("n",), "b": ("n",)},
    "design_matrix": {"x": ("n",), "y": ("n",), "z": ("m",)},
}

DIMS = {"grid_view": {"m": (1, 4)}}

ELEMENTS = {"close_checks": {"a": "any", "b": "any"}}

DOMAINS = {}

RAISES = {"design_matrix": "ValueError"}  # column_stack of unequal lengths

MUTATES = {}

ULP = {"gaussian_grid"}

SUMMED = set()


@gradc.export
def gaussian_grid(x: f64[:], y: f64[:], s: f64) -> tuple[f64[:, :], f64[:, :], f64[:, :]]:
    X, Y = np.meshgrid(x, y)
    Z = np.exp(-(X * X + Y * Y) / (s * s + 1.0))
    return X, Y, Z


@gradc.export
def grid_ij_int(a: i64[:], b: i64[:]) -> tuple[i64[:, :], i64[:, :]]:
    P, Q = np.meshgrid(a, b, indexing="ij")
    return P, P * 10 + Q


@gradc.export
def grid_view(A: f64[:, :], y: f64[:]) -> tuple[f64[:, :], f64[:, :]]:
    return np.meshgrid(A[0, ::-1], y[::2], indexing="xy")


@gradc.export
def close_checks(a: f64[:], b: f64[:], t: f64) -> tuple[bool, bool, bool]:
    near = np.isclose(a, b)
    loose = np.isclose(a, b + t * 1e-3, rtol=1e-2, atol=t)
    return (
        bool(np.all(near == np.isclose(b, a, equal_nan=True))),
        bool(np.allclose(a, b, 1e-3, 1e-6, equal_nan=True)),
        bool(np.sum(loose) > np.sum(near)),
    )


@gradc.export
def close_f32(a: f32[:], b: f32[:]) -> tuple[bool, f64]:
    return np.allclose(a, b, atol=1e-3), float(np.count_nonzero(np.isclose(a, b * 2.0)))


@gradc.export
def close_int(a: i64[:], b: i64[:], x: f64) -> tuple[bool, bool, bool]:
    return np.allclose(a, b), np.allclose(a, a), bool(np.isclose(x, 1))


@gradc.export
def design_matrix(x: f64[:], y: f64[:], z: f64[:]) -> tuple[f64[:, :], f64[:, :]]:
    X = np.column_stack((np.ones_like(x), x, x * y))
    return X, np.column_stack([x[::-1], z])
