"""Every function and constant of the math module that gradc supports, with CPython's
error behaviour: math domain errors are ValueError, range errors are OverflowError,
math.floor/ceil/trunc return ints, and math.nan/inf/-inf flow through.

Results are compared to CPython within 1 ulp (libm may differ in the last bit); gamma and
lgamma, which CPython computes with its own Lanczos code, within 1e-14 relative.
"""

import math

import gradc
from gradc import boolean, f64, i64

DOMAINS = {
    "inverse_trig": {"x": (-1.25, 1.25)},
    "hyperbolic": {"x": (-30.0, 30.0)},
    "cosh_overflow": {"x": (-1000.0, 1000.0)},
    "exp_fns": {"x": (-50.0, 50.0)},
    "exp_overflow": {"x": (600.0, 800.0)},
    "logs": {"x": (-1.0, 100.0)},
    "log_tiny": {"x": (0.0, 1e-300)},
    "log1p_fn": {"x": (-1.5, 10.0)},
    "sqrt_fn": {"x": (-10.0, 100.0)},
    "pow_fn": {"x": (-5.0, 5.0), "y": (-3.0, 3.0)},
    "pow_int_exponent": {"x": (-5.0, 5.0), "n": (-4, 6)},
    "float_pow": {"x": (0.0, 10.0), "y": (-4.0, 4.0)},
    "float_int_pow": {"x": (-10.0, 10.0), "n": (-5, 8)},
    "pow_overflow": {"x": (1.0, 1000.0)},
    "erf_fns": {"x": (-6.0, 6.0)},
    "gamma_fn": {"x": (-5.0, 200.0)},
    "lgamma_fn": {"x": (-5.0, 50.0)},
    "classify_float": {"x": "any"},
    "copysign_any": {"x": "any", "y": "any"},
    "fmod_any": {"x": "any", "y": "any"},
    "fmod_small": {"x": (-1e6, 1e6), "y": (-3.0, 3.0)},
    "floor_of_infinite": {"x": (-1.0, 1.0)},
    "int_arg_math": {"n": (-5, 100)},
}


@gradc.export
def trig(x: f64):
    return math.sin(x), math.cos(x), math.tan(x)


@gradc.export
def inverse_trig(x: f64):
    # |x| > 1 raises ValueError (math domain error) in asin
    return math.atan(x), math.asin(x), math.acos(x)


@gradc.export
def atan2_fn(y: f64, x: f64) -> f64:
    return math.atan2(y, x)


@gradc.export
def hyperbolic(x: f64):
    return math.sinh(x), math.cosh(x), math.tanh(x)


@gradc.export
def cosh_overflow(x: f64) -> f64:
    # |x| > ~710 raises OverflowError
    return math.cosh(x)


@gradc.export
def exp_fns(x: f64):
    return math.exp(x), math.expm1(x)


@gradc.export
def exp_overflow(x: f64) -> f64:
    # x > ~709.78 raises OverflowError
    return math.exp(x)


@gradc.export
def logs(x: f64):
    # x <= 0 raises ValueError, including log(0.0)
    return math.log(x), math.log2(x), math.log10(x)


@gradc.export
def log_tiny(x: f64) -> f64:
    return math.log(x)


@gradc.export
def log1p_fn(x: f64) -> f64:
    return math.log1p(x)


@gradc.export
def sqrt_fn(x: f64) -> f64:
    return math.sqrt(x)


@gradc.export
def sqrt_of_negative() -> f64:
    return math.sqrt(-1.0)


@gradc.export
def log_of_zero(x: f64) -> f64:
    return math.log(x * 0.0)


@gradc.export
def pow_fn(x: f64, y: f64) -> f64:
    # negative base with a non-integer exponent, and 0.0 ** negative: ValueError
    return math.pow(x, y)


@gradc.export
def pow_int_exponent(x: f64, n: i64) -> f64:
    return math.pow(x, n)


@gradc.export
def float_pow(x: f64, y: f64) -> f64:
    # 0.0 ** negative raises ZeroDivisionError
    return x**y


@gradc.export
def float_int_pow(x: f64, n: i64) -> f64:
    return x**n


@gradc.export
def pow_overflow(x: f64) -> f64:
    # x ** 150.0 overflows (OverflowError) for x > ~113
    return x**150.0


@gradc.export
def hypot_fn(x: f64, y: f64) -> f64:
    return math.hypot(x, y)


@gradc.export
def fabs_copysign(x: f64, y: f64):
    return math.fabs(x), math.copysign(x, y), math.copysign(1.0, -x)


@gradc.export
def copysign_any(x: f64, y: f64) -> f64:
    return math.copysign(x, y)


@gradc.export
def fmod_any(x: f64, y: f64) -> f64:
    # C fmod: the sign of x, exact; y == 0 or an infinite x (other operand not NaN) raises
    # ValueError; fmod(x, ±inf) is x for finite x; NaN propagates
    return math.fmod(x, y)


@gradc.export
def fmod_small(x: f64, y: f64):
    # large quotients, y == 0 (ValueError) among the corners; fmod of an int argument
    return math.fmod(x, y), math.fmod(x, 2), math.fmod(-x, y) - y


@gradc.export
def floor_ceil_trunc(x: f64):
    return math.floor(x), math.ceil(x), math.trunc(x)


@gradc.export
def floor_of_infinite(x: f64) -> i64:
    # x * inf is +-inf (OverflowError) or nan for x == 0 (ValueError)
    return math.floor(x * math.inf)


@gradc.export
def erf_fns(x: f64):
    return math.erf(x), math.erfc(x)


@gradc.export
def gamma_fn(x: f64) -> f64:
    # ValueError at 0 and negative integers, OverflowError above ~171.6
    return math.gamma(x)


@gradc.export
def lgamma_fn(x: f64) -> f64:
    return math.lgamma(x)


@gradc.export
def classify_float(x: f64):
    return math.isnan(x), math.isinf(x), math.isfinite(x)


@gradc.export
def constants():
    return math.pi, math.e, math.tau, math.inf, -math.inf


@gradc.export
def nan_constant() -> f64:
    return math.nan


@gradc.export
def nan_checks(x: f64) -> boolean:
    n = math.nan
    return math.isnan(n) and n != n and not (n < x) and not (n >= x)


@gradc.export
def inf_times(x: f64) -> f64:
    # 0.0 * inf is nan
    return x * math.inf


@gradc.export
def circle_area(r: f64) -> f64:
    return math.pi * r * r


@gradc.export
def sigmoid(x: f64) -> f64:
    return 1.0 / (1.0 + math.exp(-x))


@gradc.export
def int_arg_math(n: i64):
    # ints passed to math functions are converted to float
    return math.sqrt(n), math.exp(n / 10), math.floor(n), math.fabs(-n)
