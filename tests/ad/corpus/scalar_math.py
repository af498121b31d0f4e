"""Scalar functions: polynomials, rational functions, every ``math`` function with a
derivative rule, ``**`` with float, int-constant, negative and runtime int exponents, and
a few classic compositions (sigmoid, softplus, Gaussian density).

Each export ``f`` declares ``d_f`` (reverse mode, all float parameters) and ``t_f``
(forward mode, same wrt); see ``_harness.py``. Domains keep every input away from
singularities, branch cuts and kinks (asin/acos inside (-1, 1), logs and sqrt positive,
fabs/copysign away from 0).
"""

import math

import gradc
from gradc import f64, i64

DOMAINS = {
    "rational": {"y": (0.5, 3.0)},
    "tan_f": {"x": (-1.2, 1.2)},
    "asin_f": {"x": (-0.9, 0.9)},
    "inverse_hyperbolic_f": {"x": (-0.9, 0.9), "y": (1.1, 4.0)},
    "cbrt_f": {"x": (0.1, 8.0)},
    "acos_f": {"x": (-0.9, 0.9)},
    "log_f": {"x": (0.2, 5.0)},
    "log1p_f": {"x": (-0.8, 5.0)},
    "log2_f": {"x": (0.2, 5.0)},
    "log10_f": {"x": (0.2, 5.0)},
    "sqrt_f": {"x": (0.1, 9.0)},
    "fabs_f": {"x": (0.05, 3.0)},
    "atan2_f": {"y": (-3.0, 3.0), "x": (0.2, 3.0)},
    "hypot_f": {"x": (0.1, 3.0), "y": (-3.0, -0.1)},
    "pow_f": {"x": (0.3, 3.0), "y": (-2.0, 2.0)},
    "pow_op": {"x": (0.3, 3.0), "y": (-2.0, 2.0)},
    "copysign_f": {"x": (-3.0, 3.0), "y": (-2.0, 2.0)},
    "fmod_f": {"x": (-5.0, 5.0), "y": (-2.0, 2.0)},
    "fmod_const": {"x": (-3.0, 3.0)},
    "pow_neg_int": {"x": (0.4, 3.0)},
    "pow_runtime_int": {"x": (0.4, 2.0), "n": (-3, 5)},
    "pow_runtime_int_neg": {"x": (-2.0, -0.4), "n": (-3, 5)},
    "pow_half": {"x": (0.1, 4.0)},
    "int_base_pow": {"x": (-2.0, 2.0)},
    "softplus": {"x": (-5.0, 5.0)},
    "gaussian_pdf": {"sigma": (0.5, 2.0)},
    "chain_mix": {"y": (0.3, 3.0)},
    "lgamma_f": {"x": (0.05, 30.0)},
    "gamma_f": {"x": (0.2, 6.0)},
    "lgamma_negative": {"x": (-3.9, -3.1)},
    "gamma_negative": {"x": (-0.9, -0.1)},
    "beta_log": {"a": (0.3, 5.0), "b": (0.3, 5.0)},
}

KINKS = {
    # fabs(x): kink at 0 (the domain already excludes it); copysign(x, y): jumps at y = 0
    "fabs_mix": lambda x, y: (x - y,),
    "copysign_f": lambda x, y: (x, y),
    # fmod(x, y) jumps where x/y is an integer (and y = 0 raises)
    "fmod_f": lambda x, y: (
        (y,) if y == 0 else (y, x / y - round(x / y), x * x / y - round(x * x / y))
    ),
    "fmod_const": lambda x: (3.0 * x / 1.5 - round(3.0 * x / 1.5),),
}


@gradc.export
def poly3(x: f64) -> f64:
    return 3.0 * x * x * x - 2.0 * x * x + x - 7.0


@gradc.export
def poly2(x: f64, y: f64) -> f64:
    return x * x * y + 3.0 * x * y * y - y + 1.0


@gradc.export
def rational(x: f64, y: f64) -> f64:
    return (x * x + 1.0) / (y * y + 2.0) - x / y


@gradc.export
def sin_f(x: f64, y: f64) -> f64:
    return math.sin(x * y) + x


@gradc.export
def cos_f(x: f64) -> f64:
    return math.cos(2.0 * x) * x


@gradc.export
def tan_f(x: f64) -> f64:
    return math.tan(x)


@gradc.export
def asin_f(x: f64) -> f64:
    return math.asin(x) * 2.0


@gradc.export
def acos_f(x: f64) -> f64:
    return math.acos(x) + x


@gradc.export
def atan_f(x: f64, y: f64) -> f64:
    return math.atan(x * y - 1.0)


@gradc.export
def sinh_f(x: f64) -> f64:
    return math.sinh(x)


@gradc.export
def inverse_hyperbolic_f(x: f64, y: f64) -> f64:
    return math.asinh(x * y) + math.acosh(y) * math.atanh(x)


@gradc.export
def cbrt_f(x: f64) -> f64:
    return math.cbrt(x) * x


@gradc.export
def cosh_f(x: f64) -> f64:
    return math.cosh(x) - x


@gradc.export
def tanh_f(x: f64, y: f64) -> f64:
    return math.tanh(x + 0.5 * y)


@gradc.export
def exp_f(x: f64) -> f64:
    return math.exp(-x * x) + math.exp(x)


@gradc.export
def expm1_f(x: f64) -> f64:
    return math.expm1(x) / 3.0


@gradc.export
def log_f(x: f64) -> f64:
    return math.log(x) * x


@gradc.export
def log1p_f(x: f64) -> f64:
    return math.log1p(x)


@gradc.export
def log2_f(x: f64) -> f64:
    return math.log2(x)


@gradc.export
def log10_f(x: f64) -> f64:
    return math.log10(x) + 1.0


@gradc.export
def sqrt_f(x: f64) -> f64:
    return math.sqrt(x) * 3.0


@gradc.export
def fabs_f(x: f64) -> f64:
    return math.fabs(-2.0 * x)


@gradc.export
def fabs_mix(x: f64, y: f64) -> f64:
    return math.fabs(x - y) * y


@gradc.export
def erf_f(x: f64) -> f64:
    return math.erf(x)


@gradc.export
def erfc_f(x: f64) -> f64:
    return math.erfc(x)


@gradc.export
def atan2_f(y: f64, x: f64) -> f64:
    return math.atan2(y, x)


@gradc.export
def hypot_f(x: f64, y: f64) -> f64:
    return math.hypot(x, y)


@gradc.export
def pow_f(x: f64, y: f64) -> f64:
    return math.pow(x, y)


@gradc.export
def pow_op(x: f64, y: f64) -> f64:
    return x**y


@gradc.export
def copysign_f(x: f64, y: f64) -> f64:
    return math.copysign(x, y) * x


@gradc.export
def fmod_f(x: f64, y: f64) -> f64:
    return math.fmod(x, y) * x + math.fmod(x * x, y)


@gradc.export
def fmod_const(x: f64) -> f64:
    return math.fmod(3.0 * x, 1.5) * math.sin(x)


@gradc.export
def pow_int_const(x: f64) -> f64:
    return x**3 + x**2


@gradc.export
def pow_neg_int(x: f64) -> f64:
    return x**-2


@gradc.export
def pow_runtime_int(x: f64, n: i64) -> f64:
    return x**n


@gradc.export
def pow_runtime_int_neg(x: f64, n: i64) -> f64:
    return x**n * 0.5


@gradc.export
def pow_half(x: f64) -> f64:
    return x**0.5 + x**1.5


@gradc.export
def int_base_pow(x: f64) -> f64:
    return 2.0**x


@gradc.export
def sigmoid(x: f64) -> f64:
    return 1.0 / (1.0 + math.exp(-x))


@gradc.export
def softplus(x: f64) -> f64:
    return math.log1p(math.exp(x))


@gradc.export
def gaussian_pdf(x: f64, mu: f64, sigma: f64) -> f64:
    z = (x - mu) / sigma
    return math.exp(-0.5 * z * z) / (sigma * math.sqrt(2.0 * math.pi))


@gradc.export
def chain_mix(x: f64, y: f64) -> f64:
    return x * math.sin(y) + math.exp(-x * x) * math.log(y) + math.sqrt(x * x + y * y)


d_poly3 = gradc.grad(poly3, wrt=("x",))
t_poly3 = gradc.jvp(poly3, wrt=("x",))
d_poly2 = gradc.grad(poly2, wrt=("x", "y"))
t_poly2 = gradc.jvp(poly2, wrt=("x", "y"))
d_rational = gradc.grad(rational, wrt=("x", "y"))
t_rational = gradc.jvp(rational, wrt=("x", "y"))
d_sin_f = gradc.grad(sin_f, wrt=("x", "y"))
t_sin_f = gradc.jvp(sin_f, wrt=("x", "y"))
d_cos_f = gradc.grad(cos_f, wrt=("x",))
t_cos_f = gradc.jvp(cos_f, wrt=("x",))
d_tan_f = gradc.grad(tan_f, wrt=("x",))
t_tan_f = gradc.jvp(tan_f, wrt=("x",))
d_asin_f = gradc.grad(asin_f, wrt=("x",))
t_asin_f = gradc.jvp(asin_f, wrt=("x",))
d_acos_f = gradc.grad(acos_f, wrt=("x",))
t_acos_f = gradc.jvp(acos_f, wrt=("x",))
d_atan_f = gradc.grad(atan_f, wrt=("x", "y"))
t_atan_f = gradc.jvp(atan_f, wrt=("x", "y"))
d_inverse_hyperbolic_f = gradc.grad(inverse_hyperbolic_f, wrt=("x", "y"))
t_inverse_hyperbolic_f = gradc.jvp(inverse_hyperbolic_f, wrt=("x", "y"))
d_cbrt_f = gradc.grad(cbrt_f, wrt=("x",))
t_cbrt_f = gradc.jvp(cbrt_f, wrt=("x",))
d_sinh_f = gradc.grad(sinh_f, wrt=("x",))
t_sinh_f = gradc.jvp(sinh_f, wrt=("x",))
d_cosh_f = gradc.grad(cosh_f, wrt=("x",))
t_cosh_f = gradc.jvp(cosh_f, wrt=("x",))
d_tanh_f = gradc.grad(tanh_f, wrt=("x", "y"))
t_tanh_f = gradc.jvp(tanh_f, wrt=("x", "y"))
d_exp_f = gradc.grad(exp_f, wrt=("x",))
t_exp_f = gradc.jvp(exp_f, wrt=("x",))
d_expm1_f = gradc.grad(expm1_f, wrt=("x",))
t_expm1_f = gradc.jvp(expm1_f, wrt=("x",))
d_log_f = gradc.grad(log_f, wrt=("x",))
t_log_f = gradc.jvp(log_f, wrt=("x",))
d_log1p_f = gradc.grad(log1p_f, wrt=("x",))
t_log1p_f = gradc.jvp(log1p_f, wrt=("x",))
d_log2_f = gradc.grad(log2_f, wrt=("x",))
t_log2_f = gradc.jvp(log2_f, wrt=("x",))
d_log10_f = gradc.grad(log10_f, wrt=("x",))
t_log10_f = gradc.jvp(log10_f, wrt=("x",))
d_sqrt_f = gradc.grad(sqrt_f, wrt=("x",))
t_sqrt_f = gradc.jvp(sqrt_f, wrt=("x",))
d_fabs_f = gradc.grad(fabs_f, wrt=("x",))
t_fabs_f = gradc.jvp(fabs_f, wrt=("x",))
d_fabs_mix = gradc.grad(fabs_mix, wrt=("x", "y"))
t_fabs_mix = gradc.jvp(fabs_mix, wrt=("x", "y"))
d_erf_f = gradc.grad(erf_f, wrt=("x",))
t_erf_f = gradc.jvp(erf_f, wrt=("x",))
d_erfc_f = gradc.grad(erfc_f, wrt=("x",))
t_erfc_f = gradc.jvp(erfc_f, wrt=("x",))
d_atan2_f = gradc.grad(atan2_f, wrt=("y", "x"))
t_atan2_f = gradc.jvp(atan2_f, wrt=("y", "x"))
d_hypot_f = gradc.grad(hypot_f, wrt=("x", "y"))
t_hypot_f = gradc.jvp(hypot_f, wrt=("x", "y"))
d_pow_f = gradc.grad(pow_f, wrt=("x", "y"))
t_pow_f = gradc.jvp(pow_f, wrt=("x", "y"))
d_pow_op = gradc.grad(pow_op, wrt=("x", "y"))
t_pow_op = gradc.jvp(pow_op, wrt=("x", "y"))
d_copysign_f = gradc.grad(copysign_f, wrt=("x", "y"))
t_copysign_f = gradc.jvp(copysign_f, wrt=("x", "y"))
d_fmod_f = gradc.grad(fmod_f, wrt=("x", "y"))
t_fmod_f = gradc.jvp(fmod_f, wrt=("x", "y"))
d_fmod_const = gradc.grad(fmod_const, wrt=("x",))
t_fmod_const = gradc.jvp(fmod_const, wrt=("x",))
d_pow_int_const = gradc.grad(pow_int_const, wrt=("x",))
t_pow_int_const = gradc.jvp(pow_int_const, wrt=("x",))
d_pow_neg_int = gradc.grad(pow_neg_int, wrt=("x",))
t_pow_neg_int = gradc.jvp(pow_neg_int, wrt=("x",))
d_pow_runtime_int = gradc.grad(pow_runtime_int, wrt=("x",))
t_pow_runtime_int = gradc.jvp(pow_runtime_int, wrt=("x",))
d_pow_runtime_int_neg = gradc.grad(pow_runtime_int_neg, wrt=("x",))
t_pow_runtime_int_neg = gradc.jvp(pow_runtime_int_neg, wrt=("x",))
d_pow_half = gradc.grad(pow_half, wrt=("x",))
t_pow_half = gradc.jvp(pow_half, wrt=("x",))
d_int_base_pow = gradc.grad(int_base_pow, wrt=("x",))
t_int_base_pow = gradc.jvp(int_base_pow, wrt=("x",))
d_sigmoid = gradc.grad(sigmoid, wrt=("x",))
t_sigmoid = gradc.jvp(sigmoid, wrt=("x",))
d_softplus = gradc.grad(softplus, wrt=("x",))
t_softplus = gradc.jvp(softplus, wrt=("x",))
d_gaussian_pdf = gradc.grad(gaussian_pdf, wrt=("x", "mu", "sigma"))
t_gaussian_pdf = gradc.jvp(gaussian_pdf, wrt=("x", "mu", "sigma"))
d_chain_mix = gradc.grad(chain_mix, wrt=("x", "y"))
t_chain_mix = gradc.jvp(chain_mix, wrt=("x", "y"))


@gradc.export
def lgamma_f(x: f64) -> f64:
    return math.lgamma(x)


@gradc.export
def gamma_f(x: f64) -> f64:
    return math.gamma(x) * x


@gradc.export
def lgamma_negative(x: f64) -> f64:
    return math.lgamma(x) + x


@gradc.export
def gamma_negative(x: f64) -> f64:
    return math.gamma(x)


@gradc.export
def beta_log(a: f64, b: f64) -> f64:
    return math.lgamma(a) + math.lgamma(b) - math.lgamma(a + b)


d_lgamma_f = gradc.grad(lgamma_f, wrt=("x",))
t_lgamma_f = gradc.jvp(lgamma_f, wrt=("x",))
d_gamma_f = gradc.grad(gamma_f, wrt=("x",))
t_gamma_f = gradc.jvp(gamma_f, wrt=("x",))
d_lgamma_negative = gradc.grad(lgamma_negative, wrt=("x",))
t_lgamma_negative = gradc.jvp(lgamma_negative, wrt=("x",))
d_gamma_negative = gradc.grad(gamma_negative, wrt=("x",))
t_gamma_negative = gradc.jvp(gamma_negative, wrt=("x",))
d_beta_log = gradc.grad(beta_log, wrt=("a", "b"))
t_beta_log = gradc.jvp(beta_log, wrt=("a", "b"))
