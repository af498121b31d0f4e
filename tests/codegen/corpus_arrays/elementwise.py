"""Whole-array elementwise arithmetic (issue 11): operators, comparisons, bitwise
operators, in-place operators and NumPy ufuncs on arrays of any layout, broadcasting
(size-1 axes, lower ranks, mismatches raising ValueError), NEP 50 dtypes of mixed array
and scalar operands (f32 array * 2.0 is f32, int array / int is f64, bool array + 1 is
int64), and fused chains.

Divisors and logarithm arguments come from ranges without zeros or negatives (the
oracle runs with NumPy warnings as errors); transcendental functions compare within 1
ulp (ULP).
"""

import numpy as np

import gradc
from gradc import f32, f64, i64


@gradc.export
def ew_chain(x: f64[:], a: f64, b: f64) -> f64[:]:
    return a * x + b * np.exp(-x * x)


@gradc.export
def ew_broadcast_2d(A: f64[:, :], v: f64[:], w: f64[:, :]) -> f64[:, :]:
    return (A - v) * w + 1.5


@gradc.export
def ew_mismatch(a: f64[:], b: f64[:]) -> f64[:]:
    return a + b


@gradc.export
def ew_mixed_dtypes(x: f32[:, :], n: i64[:], k: i64) -> f64[:, :]:
    return x * 2.0 + n / k


@gradc.export
def ew_f32_weak(x: f32[:]) -> f32[:]:
    return -x * 2.0 + 1 - abs(x) / 4.0


@gradc.export
def ew_int_ops(a: i64[:, :], b: i64[:], k: i64) -> i64[:, :]:
    return (a * b - a // k + a % 3) ** 2 + (-a) * k


@gradc.export
def ew_int_power(a: i64[:], b: i64[:]) -> i64[:]:
    return a**b + 1


@gradc.export
def ew_float_floor_mod(a: f64[:], b: f64[:]) -> f64[:]:
    return a // b + a % b * 0.5


@gradc.export
def ew_bool_arith(m: "bool[:]", n: "bool[:]") -> i64[:]:
    return (m + n) * 3 + (m * n) + ~m + 1


@gradc.export
def ew_compare(x: f64[:, :], y: f64[:, :]) -> "bool[:, :]":
    return ((x < y) & (x != 0.0)) | (x >= y * 2.0) ^ (y == 1.0)


@gradc.export
def ew_bitwise(a: i64[:], b: i64[:]) -> i64[:]:
    return (a & b) | (a ^ 7) + (~a) + (a << 3) - (b >> 2)


@gradc.export
def ew_shift_counts(a: i64[:], s: i64[:]) -> i64[:]:
    return (a << s) + (a >> s)


@gradc.export
def ew_power(x: f64[:], p: f64) -> f64[:]:
    return x**2 + x**-1 + abs(x) ** 0.5 + abs(x) ** p


@gradc.export
def ew_ufuncs(x: f64[:], y: f64[:]) -> f64[:]:
    r = np.sqrt(np.abs(x)) + np.floor(x) * np.ceil(y) + np.minimum(x, y) - np.fmax(x, y)
    r = r + np.sign(x) + np.copysign(y, x) + np.hypot(x, y) + np.arctan2(y, x)
    return r + np.deg2rad(x) + np.square(y) + np.trunc(x * 3.0) + np.tanh(x) * np.log1p(y * y)


@gradc.export
def ew_predicates(x: f64[:], y: f64[:]) -> "bool[:]":
    return np.isnan(x / y) | np.isinf(x) | ~np.isfinite(y)


@gradc.export
def ew_where_clip(c: f64[:], a: f64[:, :], lo: f64) -> f64[:, :]:
    return np.where(c > 0.0, a, np.clip(a, lo, 2.0)) + np.maximum(a, 0.0)


@gradc.export
def ew_int_to_float_ufuncs(n: i64[:]) -> f64[:]:
    return np.exp(n / 10) + np.sqrt(np.abs(n)) + np.sin(n)


@gradc.export
def ew_cbrt_rint(x: f64[:], y: f32[:]) -> f64[:]:
    # np.cbrt(x) itself differs from libm's by several ulp where NumPy uses its SIMD
    # (SVML) loop: only the cube root of exact cubes is compared
    return (
        np.cbrt(np.rint(x) ** 3) + np.rint(x * 2.5) + np.round(x) + (np.rint(y) + np.round(y * 1.5))
    )


@gradc.export
def ew_inplace(a: f64[:, :], b: f64[:], s: f64) -> None:
    a += b * s
    a -= 1.0
    a *= a
    a /= 2.0


@gradc.export
def ew_inplace_int(a: i64[:], b: i64[:]) -> None:
    a += b
    a *= 3
    a //= 2
    a ^= b


@gradc.export
def ew_inplace_f32_from_f64(a: f32[:], b: f64[:]) -> None:
    a += b


@gradc.export
def ew_rebind_scalar(x: f64, a: f64[:]) -> f64[:]:
    y = x
    y += a
    y *= 2.0
    return y


@gradc.export
def ew_3d(t: f64[:, :, :], u: f64[:, :]) -> f64[:, :, :]:
    return t * u - np.cos(t) + u


SHAPES = {
    "ew_chain": {"x": ("n",)},
    "ew_broadcast_2d": {"A": ("m", "n"), "v": ("n",), "w": ("m", 1)},
    "ew_mismatch": {"a": ("m",), "b": ("n",)},
    "ew_mixed_dtypes": {"x": ("m", "n"), "n": ("n",)},
    "ew_f32_weak": {"x": ("n",)},
    "ew_int_ops": {"a": ("m", "n"), "b": (1,)},
    "ew_int_power": {"a": ("n",), "b": ("n",)},
    "ew_float_floor_mod": {"a": ("n",), "b": ("n",)},
    "ew_bool_arith": {"m": ("n",), "n": ("n",)},
    "ew_compare": {"x": ("m", "n"), "y": (1, "n")},
    "ew_bitwise": {"a": ("n",), "b": ("n",)},
    "ew_shift_counts": {"a": ("n",), "s": ("n",)},
    "ew_power": {"x": ("n",)},
    "ew_ufuncs": {"x": ("n",), "y": ("n",)},
    "ew_predicates": {"x": ("n",), "y": ("n",)},
    "ew_where_clip": {"c": ("n",), "a": ("m", "n")},
    "ew_int_to_float_ufuncs": {"n": ("n",)},
    "ew_inplace": {"a": ("m", "n"), "b": ("n",)},
    "ew_inplace_int": {"a": ("n",), "b": ("n",)},
    "ew_inplace_f32_from_f64": {"a": ("n",), "b": ("n",)},
    "ew_rebind_scalar": {"a": ("n",)},
    "ew_3d": {"t": ("p", "m", "n"), "u": ("m", "n")},
    "ew_cbrt_rint": {"x": ("n",), "y": ("n",)},
}

DIMS = {}

ELEMENTS = {
    "ew_float_floor_mod": {"b": (0.5, 4.0)},
    "ew_ufuncs": {"x": (0.25, 5.0), "y": (0.25, 5.0)},
    "ew_predicates": {"y": (0.5, 3.0)},
    "ew_power": {"x": (0.5, 4.0)},
    "ew_int_ops": {"a": (-30, 30), "b": (-30, 30)},
    "ew_int_power": {"a": (-9, 9), "b": (-1, 5)},
    "ew_shift_counts": {"s": (-3, 70)},
    "ew_inplace_int": {"a": (-1000, 1000), "b": (-1000, 1000)},
}

DOMAINS = {
    "ew_mixed_dtypes": {"k": (1, 9)},
    "ew_int_ops": {"k": (1, 9)},
    "ew_power": {"p": (0.25, 3.0)},
}

RAISES = {"ew_mismatch": "ValueError", "ew_int_power": "ValueError"}

MUTATES = {
    "ew_inplace": ("a",),
    "ew_inplace_int": ("a",),
    "ew_inplace_f32_from_f64": ("a",),
}

ULP = {
    "ew_cbrt_rint",
    "ew_chain",
    "ew_ufuncs",
    "ew_power",
    "ew_where_clip",
    "ew_int_to_float_ufuncs",
    "ew_3d",
}
