"""NumPy functions of issue 11's list added for the array fuzzer's findings:
``np.logical_and/or/xor/not`` (arrays and scalars, every dtype: NaN is true),
``np.diff`` (any axis, bools by ``!=``), ``a.clip(lo, hi)``, ``np.full(n, x, dtype=...)``
with NumPy's unsafe cast of the fill value, and ``np.linalg.norm(x, ord, axis=...)``
(vector norms along an axis, the Frobenius norm over two; norms are SUMMED).
"""

import numpy as np

import gradc
from gradc import f32, f64, i64

SHAPES = {
    "logical_arrays": {"a": ("m", "n"), "k": ("n",), "b": ("m", "n")},
    "logical_f32": {"x": ("n",)},
    "diff_axes": {"a": ("m", "n")},
    "diff_bool_int": {"b": ("m", "n"), "k": ("n",)},
    "diff_f32": {"x": ("n",)},
    "clip_method": {"a": ("m", "n")},
    "full_casts": {"a": ("n",)},
    "norm_axes": {"a": ("m", "n")},
    "norm_int_inf": {"k": ("m", "n")},
}
ELEMENTS = {
    "logical_arrays": {"a": "any"},
    "clip_method": {"a": "any"},
    "diff_axes": {"a": (-1e6, 1e6)},  # "any" draws inf - inf, which the oracle refuses
}
DOMAINS = {"full_casts": {"n": (0, 5)}}
SUMMED = {"norm_axes"}


@gradc.export
def logical_arrays(a: f64[:, :], k: i64[:], b: "bool[:, :]", s: f64) -> "bool[:, :]":
    x = np.logical_and(a, k) ^ np.logical_not(a > s)
    return x | np.logical_xor(b, s) & np.logical_or(k, b)


@gradc.export
def logical_scalars(s: f64, n: i64, c: bool) -> tuple[bool, bool, bool, bool]:
    return (
        np.logical_and(s, n),
        np.logical_or(c, s),
        np.logical_xor(n, c),
        np.logical_not(s),
    )


@gradc.export
def logical_f32(x: f32[:]) -> "bool[:]":
    return np.logical_or(x, x > 0.5)


@gradc.export
def diff_axes(a: f64[:, :]) -> tuple[f64[:, :], f64[:, :], f64[:, :]]:
    return np.diff(a), np.diff(a, axis=0), np.diff(a=a, axis=-2)


@gradc.export
def diff_bool_int(b: "bool[:, :]", k: i64[:]) -> tuple["bool[:, :]", i64[:]]:
    return np.diff(b, axis=1), np.diff(k, n=1)


@gradc.export
def diff_f32(x: f32[:]) -> f32[:]:
    return np.diff(x[::-1])


@gradc.export
def clip_method(a: f64[:, :], lo: f64, hi: f64) -> tuple[f64[:, :], f64[:, :]]:
    return a.clip(lo, hi), a.T.clip(max=hi, min=-1.5)


@gradc.export
def full_casts(a: f64[:], n: i64, s: f64) -> tuple["bool[:]", i64[:], "bool[:]", f64[:]]:
    return (
        np.full(n, 1, dtype=bool),
        np.full_like(a, 2.5, dtype=np.int64),
        np.full(n, s, dtype=np.bool_),
        np.full(n, True, dtype=float),
    )


@gradc.export
def norm_axes(a: f64[:, :]) -> tuple[f64[:], f64[:, :], f64[:], f64]:
    return (
        np.linalg.norm(a, axis=1),
        np.linalg.norm(a, 1, axis=0, keepdims=True),
        np.linalg.norm(a, 2, axis=-2),
        np.linalg.norm(a, "fro", axis=(1, 0)),
    )


@gradc.export
def norm_int_inf(k: i64[:, :]) -> tuple[f64[:], f64[:]]:
    return np.linalg.norm(k, np.inf, axis=0), np.linalg.norm(k, axis=1)
