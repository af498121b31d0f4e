"""NumPy's math functions and constants on scalars: NumPy's values and types, never an
exception (np.sqrt(-1.0) is nan, np.log(0.0) -inf, np.exp(1000.0) inf: NumPy only warns),
integer results where NumPy keeps the integer type (np.abs, np.floor, np.minimum of ints),
NaN propagation of np.minimum/maximum and NaN skipping of np.fmin/fmax.

Results are NumPy scalars (np.float64 is a float; ints and bools are converted with
int()/bool(), which compiled code also runs). Floats are compared within 1 ulp (this
module imports math): NumPy's SIMD exp/log/sinh/... differ from the C library's in the
last bit; np.tanh by up to 2 ulp (LOOSE in test_differential.py).
"""

import math

import numpy as np
from numpy import inf

import gradc
from gradc import boolean, f64, i64

TWO_PI = 2.0 * np.pi  # folded at compile time

DOMAINS = {
    "exps_logs": {"x": "any"},
    "exps_logs_finite": {"x": (-800.0, 800.0)},
    "trig": {"x": "any"},
    "trig_small": {"x": (-10.0, 10.0)},
    "inverse_trig": {"x": (-1.5, 1.5)},
    "inverse_hyperbolic": {"x": (-3.0, 3.0)},
    "rounding_half_even": {"x": (-10.0, 10.0)},
    "hyperbolic": {"x": (-800.0, 800.0)},
    "two_args": {"x": "any", "y": "any"},
    "two_args_finite": {"x": (-50.0, 50.0), "y": (-50.0, 50.0)},
    "power_fn": {"x": (-5.0, 5.0), "y": (-4.0, 4.0)},
    "rounding": {"x": "any"},
    "rounding_int": {"n": (-1099511627776, 1099511627776)},
    "abs_sign": {"x": "any"},
    "abs_sign_int": {"n": (-50, 50)},
    "extrema": {"x": "any", "y": "any"},
    "extrema_int": {"m": (-50, 50), "n": (-50, 50)},
    "extrema_mixed": {"x": "any", "n": (-50, 50)},
    "where_clip": {"x": "any", "y": "any", "n": (-50, 50)},
    "classify": {"x": "any"},
    "square_reciprocal": {"x": "any"},
    "angles": {"x": "any"},
    "int_operands": {"n": (-50, 50)},
    "gaussian": {"z": (-40.0, 40.0), "sigma": (0.01, 10.0)},
}


@gradc.export
def exps_logs(x: f64) -> tuple[f64, f64, f64, f64, f64, f64, f64]:
    return np.exp(x), np.expm1(x), np.log(x), np.log1p(x), np.log2(x), np.log10(x), np.sqrt(x)


@gradc.export
def exps_logs_finite(x: f64) -> tuple[f64, f64, f64, f64]:
    return np.exp(x), np.expm1(x), np.log(x), np.sqrt(-x)


@gradc.export
def trig(x: f64) -> tuple[f64, f64, f64, f64]:
    return np.sin(x), np.cos(x), np.tan(x), np.arctan(x)


@gradc.export
def trig_small(x: f64) -> tuple[f64, f64, f64]:
    return np.sin(x), np.cos(x), np.tan(x / 4.0)


@gradc.export
def inverse_trig(x: f64) -> tuple[f64, f64, f64]:
    return np.arcsin(x), np.arccos(x), np.arctan(x)


@gradc.export
def inverse_hyperbolic(x: f64) -> tuple[f64, f64, f64]:
    return np.arcsinh(x), np.arccosh(x), np.arctanh(x / 4.0)


@gradc.export
def rounding_half_even(x: f64) -> tuple[f64, f64, f64]:
    return np.rint(x), np.round(x * 2.0), np.rint(np.round(x) + 0.5)


@gradc.export
def hyperbolic(x: f64) -> tuple[f64, f64, f64]:
    return np.sinh(x), np.cosh(x), np.tanh(x)


@gradc.export
def two_args(x: f64, y: f64) -> tuple[f64, f64, f64, f64]:
    return np.arctan2(y, x), np.hypot(x, y), np.copysign(x, y), np.power(x, y)


@gradc.export
def two_args_finite(x: f64, y: f64) -> tuple[f64, f64, f64]:
    return np.arctan2(y, x), np.hypot(x, y), np.copysign(1.0, y)


@gradc.export
def power_fn(x: f64, y: f64) -> f64:
    return np.power(x, y)


@gradc.export
def rounding(x: f64) -> tuple[f64, f64, f64]:
    return np.floor(x), np.ceil(x), np.trunc(x)


@gradc.export
def rounding_int(n: i64) -> tuple[i64, i64, i64]:
    return int(np.floor(n)), int(np.ceil(n)), int(np.trunc(n))


@gradc.export
def abs_sign(x: f64) -> tuple[f64, f64, f64, f64]:
    return np.abs(x), np.absolute(x), np.fabs(x), np.sign(x)


@gradc.export
def abs_sign_int(n: i64) -> tuple[i64, i64, f64, i64]:
    return int(np.abs(n)), int(np.absolute(n)), np.fabs(n), int(np.sign(n))


@gradc.export
def abs_bool(b: boolean) -> tuple[bool, bool, bool]:
    return bool(np.abs(b)), bool(np.floor(b)), bool(np.minimum(b, True))


@gradc.export
def extrema(x: f64, y: f64) -> tuple[f64, f64, f64, f64]:
    return np.minimum(x, y), np.maximum(x, y), np.fmin(x, y), np.fmax(x, y)


@gradc.export
def extrema_int(m: i64, n: i64) -> tuple[i64, i64, i64, i64]:
    return int(np.minimum(m, n)), int(np.maximum(m, n)), int(np.fmin(m, n)), int(np.fmax(m, n))


@gradc.export
def extrema_mixed(x: f64, n: i64) -> tuple[f64, f64]:
    return np.minimum(n, x), np.fmax(x, n)


# NumPy's np.where of scalars is a 0-d array (gradc's a scalar): compared through float()
@gradc.export
def where_clip(x: f64, y: f64, n: i64, b: boolean) -> tuple[f64, f64, i64, f64, f64, i64]:
    return (
        float(np.where(x > y, x, y)),
        float(np.clip(x, -1.0, y)),
        int(np.clip(n, -3, 7)),
        float(np.where(b, n, x)),
        float(np.clip(n, 0.5, y)),
        int(np.where(b, 1, n)),
    )


@gradc.export
def classify(x: f64) -> tuple[bool, bool, bool]:
    return bool(np.isnan(x)), bool(np.isinf(x)), bool(np.isfinite(x))


@gradc.export
def classify_int(n: i64, b: boolean) -> tuple[bool, bool, bool, bool]:
    return bool(np.isnan(n)), bool(np.isinf(n)), bool(np.isfinite(n)), bool(np.isnan(b))


@gradc.export
def square_reciprocal(x: f64) -> tuple[f64, f64]:
    return np.square(x), np.reciprocal(x)


@gradc.export
def angles(x: f64) -> tuple[f64, f64]:
    return np.deg2rad(x), np.rad2deg(x)


@gradc.export
def int_operands(n: i64) -> tuple[f64, f64, f64, f64, i64]:
    return np.sqrt(n), np.exp(n), np.log(n), np.arctan2(n, 2), int(np.square(n))


@gradc.export
def constants() -> tuple[f64, f64, f64, f64, f64, f64, f64, f64]:
    return np.pi, np.e, np.inf, -np.inf, np.nan, 2.0 * np.pi - math.tau, TWO_PI, -inf


@gradc.export
def gaussian(z: f64, sigma: f64) -> tuple[f64, f64]:
    # one libm call per result: two 1-ulp differences may compound past 1 ulp
    return np.exp(-0.5 * z * z), sigma * np.sqrt(2.0 * np.pi)


@gradc.export
def no_raise(x: f64) -> f64:
    # math.sqrt(-1.0) raises; NumPy's is nan
    return np.sqrt(-1.0 - x * x) + np.log(0.0 * x)
