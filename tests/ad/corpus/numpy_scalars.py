"""NumPy's math functions on scalars: derivatives through the ``ieee_`` twins (the rules
of their ``math`` functions), np.abs/np.sign, np.minimum/maximum/fmin/fmax (the picked
operand's derivative), np.floor/ceil/trunc (0), np.square/reciprocal/deg2rad/rad2deg and
np.power, in forward and reverse mode against finite differences.

Domains keep inputs inside the functions' domains; KINKS keep them away from the kinks of
abs and sign (0) and the ties of the extrema.
"""

import numpy as np

import gradc
from gradc import f64, i64

DOMAINS = {
    "logs": {"x": (0.2, 5.0)},
    "inverse_trig": {"x": (-0.9, 0.9)},
    "roots": {"x": (0.1, 9.0)},
    "two_args": {"x": (0.2, 3.0), "y": (-3.0, 3.0)},
    "power_f": {"x": (0.3, 3.0), "y": (-2.0, 2.0)},
    "reciprocal_f": {"x": (0.3, 3.0)},
    "gaussian": {"sigma": (0.5, 2.0)},
    "int_mix": {"n": (1, 4)},
}

KINKS = {
    "abs_sign": lambda x, y: (x, y),
    "two_args": lambda x, y: (y,),
    "extrema": lambda x, y: (x - y,),
    "rounding": lambda x: (x - round(x),),
    "int_mix": lambda x, n: (x - n,),
    "where_clip": lambda x, y: (x - y, x * y - 0.5, x * y + 0.5),
}


@gradc.export
def exps(x: f64, y: f64) -> f64:
    return np.exp(x * y) + np.expm1(x) - np.exp(-x * x)


@gradc.export
def logs(x: f64) -> f64:
    return np.log(x) + np.log1p(x) * np.log2(x) - np.log10(x)


@gradc.export
def roots(x: f64) -> f64:
    return np.sqrt(x) * np.hypot(x, 1.0)


@gradc.export
def trig(x: f64, y: f64) -> f64:
    return np.sin(x * y) + np.cos(x) * np.tan(0.5 * y) + np.arctan(x - y)


@gradc.export
def inverse_trig(x: f64) -> f64:
    return np.arcsin(x) * 2.0 + np.arccos(x) * x


@gradc.export
def hyperbolic(x: f64, y: f64) -> f64:
    return np.sinh(x) - np.cosh(y) + np.tanh(x + 0.5 * y)


@gradc.export
def two_args(x: f64, y: f64) -> f64:
    return np.arctan2(y, x) + np.hypot(x, y) * np.copysign(2.0, y)


@gradc.export
def power_f(x: f64, y: f64) -> f64:
    return np.power(x, y) + np.power(x, 3.0)


@gradc.export
def abs_sign(x: f64, y: f64) -> f64:
    return np.abs(x) * y + np.absolute(y) + np.fabs(x * y) + np.sign(x) * y


@gradc.export
def extrema(x: f64, y: f64) -> f64:
    return np.minimum(x, y) * 2.0 + np.maximum(x, y) + np.fmin(x, y) * x - np.fmax(y, x)


@gradc.export
def where_clip(x: f64, y: f64) -> f64:
    return np.where(x > y, x * y, y) + np.clip(x * y, -0.5, 0.5) * 3.0 + np.clip(x, y, 4.0)


@gradc.export
def rounding(x: f64) -> f64:
    return np.floor(x) * x + np.ceil(x) - np.trunc(x) * x


@gradc.export
def square_reciprocal(x: f64) -> f64:
    return np.square(x) + np.square(x - 1.0) * x


@gradc.export
def reciprocal_f(x: f64) -> f64:
    return np.reciprocal(x) * x + np.reciprocal(x * x)


@gradc.export
def angles(x: f64) -> f64:
    return np.sin(np.deg2rad(x * 30.0)) + np.rad2deg(x)


@gradc.export
def gaussian(x: f64, mu: f64, sigma: f64) -> f64:
    z = (x - mu) / sigma
    return np.exp(-0.5 * z * z) / (sigma * np.sqrt(2.0 * np.pi))


@gradc.export
def int_mix(x: f64, n: i64) -> f64:
    return np.maximum(x, n) * np.sqrt(n) + np.minimum(n, x) * x


d_exps = gradc.grad(exps, wrt=("x", "y"))
t_exps = gradc.jvp(exps, wrt=("x", "y"))
d_logs = gradc.grad(logs, wrt=("x",))
t_logs = gradc.jvp(logs, wrt=("x",))
d_roots = gradc.grad(roots, wrt=("x",))
t_roots = gradc.jvp(roots, wrt=("x",))
d_trig = gradc.grad(trig, wrt=("x", "y"))
t_trig = gradc.jvp(trig, wrt=("x", "y"))
d_inverse_trig = gradc.grad(inverse_trig, wrt=("x",))
t_inverse_trig = gradc.jvp(inverse_trig, wrt=("x",))
d_hyperbolic = gradc.grad(hyperbolic, wrt=("x", "y"))
t_hyperbolic = gradc.jvp(hyperbolic, wrt=("x", "y"))
d_two_args = gradc.grad(two_args, wrt=("x", "y"))
t_two_args = gradc.jvp(two_args, wrt=("x", "y"))
d_power_f = gradc.grad(power_f, wrt=("x", "y"))
t_power_f = gradc.jvp(power_f, wrt=("x", "y"))
d_abs_sign = gradc.grad(abs_sign, wrt=("x", "y"))
t_abs_sign = gradc.jvp(abs_sign, wrt=("x", "y"))
d_extrema = gradc.grad(extrema, wrt=("x", "y"))
t_extrema = gradc.jvp(extrema, wrt=("x", "y"))
d_where_clip = gradc.grad(where_clip, wrt=("x", "y"))
t_where_clip = gradc.jvp(where_clip, wrt=("x", "y"))
d_rounding = gradc.grad(rounding, wrt=("x",))
t_rounding = gradc.jvp(rounding, wrt=("x",))
d_square_reciprocal = gradc.grad(square_reciprocal, wrt=("x",))
t_square_reciprocal = gradc.jvp(square_reciprocal, wrt=("x",))
d_reciprocal_f = gradc.grad(reciprocal_f, wrt=("x",))
t_reciprocal_f = gradc.jvp(reciprocal_f, wrt=("x",))
d_angles = gradc.grad(angles, wrt=("x",))
t_angles = gradc.jvp(angles, wrt=("x",))
d_gaussian = gradc.grad(gaussian, wrt=("x", "mu", "sigma"))
t_gaussian = gradc.jvp(gaussian, wrt=("x", "mu", "sigma"))
d_int_mix = gradc.grad(int_mix, wrt=("x",))
t_int_mix = gradc.jvp(int_mix, wrt=("x",))
