"""Derivative rules at the edges of their domains (issue #18, classes 3, 4, 7 and 10):
partials that would raise (``log(0)`` in the rule of ``0 ** x``), a zero adjoint or
tangent times an infinite or NaN partial, piecewise-constant operations and kinks.

Every export ``f`` has ``d_f = gradc.grad(f, wrt=<float parameters>)`` and
``t_f = gradc.jvp(f, wrt=<the same>)``; ``tests/ad/test_ad_reliability_rules.py`` checks
them against CPython running this module (values and exceptions) and finite
differences of it.
"""

import math

import numpy as np

import gradc
from gradc import f64, i64


@gradc.export("f64(i64, f64, f64)")
def zero_pow_unused(x0, y1, z2):  # class 3: ValueError from log(0) in d/dz of 0 ** z
    v2 = 0
    v3 = v2**z2  # noqa: F841
    return v2


d_zero_pow_unused = gradc.grad(zero_pow_unused, wrt=("y1", "z2"))
t_zero_pow_unused = gradc.jvp(zero_pow_unused, wrt=("y1", "z2"))


@gradc.export
def zero_pow_used(x: f64, z: f64) -> f64:  # d/dz 0 ** z is 0 for z > 0, not 0·(-inf)
    return 0.0**z + x * (0.0**z + 1.0)


d_zero_pow_used = gradc.grad(zero_pow_used, wrt=("x", "z"))
t_zero_pow_used = gradc.jvp(zero_pow_used, wrt=("x", "z"))


@gradc.export
def zero_pow_hypot(b: f64[:, :]) -> f64:
    return 0 ** math.hypot(3.9, b[1, 1]) + b[0, 0]


d_zero_pow_hypot = gradc.grad(zero_pow_hypot, wrt="b")
t_zero_pow_hypot = gradc.jvp(zero_pow_hypot, wrt="b")


@gradc.export
def zero_pow_branch(x0: f64) -> f64:  # 0.0 ** x0: 0 for x0 > 0, ZeroDivisionError below
    if 0.0**x0:
        return x0 * 2.0
    return x0 * 3.0


d_zero_pow_branch = gradc.grad(zero_pow_branch, wrt="x0")
t_zero_pow_branch = gradc.jvp(zero_pow_branch, wrt="x0")


@gradc.export
def math_pow_zero_base(b: f64[:]) -> f64:  # ValueError below 0 (math.pow's own rule)
    return math.pow(0, b[1]) + b[0]


d_math_pow_zero_base = gradc.grad(math_pow_zero_base, wrt="b")
t_math_pow_zero_base = gradc.jvp(math_pow_zero_base, wrt="b")


@gradc.export
def pow_zero_exponent(x: f64, y: f64) -> f64:  # d/dx x ** y at y == 0 is 0, also at x = 0
    return x**y + math.pow(x, y) * y


d_pow_zero_exponent = gradc.grad(pow_zero_exponent, wrt=("x", "y"))
t_pow_zero_exponent = gradc.jvp(pow_zero_exponent, wrt=("x", "y"))


@gradc.export
def pow_inf_exponent(x: f64, y: f64) -> f64:  # d/da a ** ±inf is 0 (not -inf·0)
    return x**math.inf + math.pow(y, -math.inf) + x


d_pow_inf_exponent = gradc.grad(pow_inf_exponent, wrt=("x", "y"))
t_pow_inf_exponent = gradc.jvp(pow_inf_exponent, wrt=("x", "y"))


@gradc.export
def atan2_infinite(x: f64, y: f64) -> f64:  # atan2 with an infinite argument: constant
    return math.atan2(y, -math.inf) + math.atan2(math.inf, x) + y


d_atan2_infinite = gradc.grad(atan2_infinite, wrt=("x", "y"))
t_atan2_infinite = gradc.jvp(atan2_infinite, wrt=("x", "y"))


@gradc.export
def zero_factor_path(x: f64, y: f64) -> f64:  # v0 = 0·y: its infinite adjoint times 0
    v0 = float(int(0.0 * 1.0)) * y
    v1 = v0**x  # d/dv0 = x·v0^(x−1) = inf at v0 = 0
    return v1 / y + x


d_zero_factor_path = gradc.grad(zero_factor_path, wrt=("x", "y"))
t_zero_factor_path = gradc.jvp(zero_factor_path, wrt=("x", "y"))


@gradc.export
def negative_base_zero_exponent(x: f64, y: f64) -> f64:  # d/db = 0 at a base <= 0, times 0
    v1 = float(int(y * 1.0)) * x
    return x**v1 + x


d_negative_base_zero_exponent = gradc.grad(negative_base_zero_exponent, wrt=("x", "y"))
t_negative_base_zero_exponent = gradc.jvp(negative_base_zero_exponent, wrt=("x", "y"))


@gradc.export
def pow_cancelling_exponent(x: f64, y: f64) -> f64:  # the exponent is 0 as a whole
    return y ** (x * 2.0 - x - x) + x  # d/db at y <= 0 was -inf or NaN: -inf + inf, NaN - NaN


d_pow_cancelling_exponent = gradc.grad(pow_cancelling_exponent, wrt=("x", "y"))
t_pow_cancelling_exponent = gradc.jvp(pow_cancelling_exponent, wrt=("x", "y"))


@gradc.export
def atan2_origin(x: f64) -> f64:  # atan2(0, 0·...) at the origin: 0, not 0/0
    return math.atan2(0.0, x**-math.inf) + x


d_atan2_origin = gradc.grad(atan2_origin, wrt="x")
t_atan2_origin = gradc.jvp(atan2_origin, wrt="x")


@gradc.export
def mod_after_pow(x: f64, n: i64) -> f64:  # class 4: the primal's ZeroDivisionError first
    v = math.pow(0.0, x)
    m = 7 % n
    return v + m * x


d_mod_after_pow = gradc.grad(mod_after_pow, wrt="x")
t_mod_after_pow = gradc.jvp(mod_after_pow, wrt="x")


@gradc.export
def pow_neg_inf(z: f64) -> f64:  # math.pow(-inf, z) is defined; its rule must not raise
    return math.pow(-math.inf, z) + z


d_pow_neg_inf = gradc.grad(pow_neg_inf, wrt="z")
t_pow_neg_inf = gradc.jvp(pow_neg_inf, wrt="z")


@gradc.export
def pow_overflow(x: f64) -> f64:  # OverflowError (CPython's), not a derivative's ValueError
    v = 100.0**2.0 + x
    return v**v


d_pow_overflow = gradc.grad(pow_overflow, wrt="x")
t_pow_overflow = gradc.jvp(pow_overflow, wrt="x")


@gradc.export
def store_after_pow(x: f64, b: f64[:]) -> f64:  # IndexError, not the rule's ValueError
    v = math.pow(0.0, x) + math.log(x)
    b[5] = v
    return v + b[0]


d_store_after_pow = gradc.grad(store_after_pow, wrt=("x", "b"))
t_store_after_pow = gradc.jvp(store_after_pow, wrt=("x", "b"))


@gradc.export("f64(f64)")
def unused_nan(x):  # class 7: the zero adjoint of a dead value times NaN
    unused = math.nan * x  # noqa: F841
    return x


d_unused_nan = gradc.grad(unused_nan, wrt="x")
t_unused_nan = gradc.jvp(unused_nan, wrt="x")


@gradc.export
def unused_in_loop(x: f64, n: i64) -> f64:  # a dead value whose adjoint is a loop phi
    s = x
    for i in range(n):
        dead = math.sqrt(abs(s - x)) * math.inf  # noqa: F841
        s = s + x * i
    return s


d_unused_in_loop = gradc.grad(unused_in_loop, wrt="x")
t_unused_in_loop = gradc.jvp(unused_in_loop, wrt="x")


@gradc.export
def sqrt_of_square(x: f64) -> f64:  # |x| + x: no derivative at x = 0 (slopes 0 and 2)
    return math.sqrt(x * x) + x


d_sqrt_of_square = gradc.grad(sqrt_of_square, wrt="x")
t_sqrt_of_square = gradc.jvp(sqrt_of_square, wrt="x")


@gradc.export
def max_unselected(x: f64) -> f64:  # max picks 1.0: 0·sqrt'(0) = 0·inf must be 0
    t = math.sqrt(abs(x))
    return max(t, 1.0) + x


d_max_unselected = gradc.grad(max_unselected, wrt="x")
t_max_unselected = gradc.jvp(max_unselected, wrt="x")


@gradc.export
def max_of_inf_product(x: f64) -> f64:  # max picks 1.0: 0·(∂ of -inf·x) = 0·-inf must be 0
    return max(1.0, -math.inf * x) + x


d_max_of_inf_product = gradc.grad(max_of_inf_product, wrt="x")
t_max_of_inf_product = gradc.jvp(max_of_inf_product, wrt="x")


@gradc.export
def times_zero(x: f64) -> f64:  # 0.0·sqrt(x): d/dx is 0, also at x = 0 (sqrt' = inf)
    return 0.0 * math.sqrt(x) + x


d_times_zero = gradc.grad(times_zero, wrt="x")
t_times_zero = gradc.jvp(times_zero, wrt="x")


@gradc.export
def hypot_origin(x: f64, y: f64) -> f64:  # hypot at (0, 0): 0, as abs'(0), not 0/0
    return math.hypot(x, y) * 0.5 + x


d_hypot_origin = gradc.grad(hypot_origin, wrt=("x", "y"))
t_hypot_origin = gradc.jvp(hypot_origin, wrt=("x", "y"))


@gradc.export
def steps(x: f64, y: f64) -> f64:  # piecewise-constant operations have zero derivative
    k = math.floor(x) * y + math.ceil(y) * x + int(x * y) + math.trunc(x - y)
    return k + float(x > y) * x


d_steps = gradc.grad(steps, wrt=("x", "y"))
t_steps = gradc.jvp(steps, wrt=("x", "y"))


@gradc.export
def kinks(x: f64, y: f64) -> f64:  # min/max/abs/copysign: the side Python picks
    return min(x, y) * max(x, 0.5) + abs(x - y) * math.copysign(x, y) + math.fabs(y)


d_kinks = gradc.grad(kinks, wrt=("x", "y"))
t_kinks = gradc.jvp(kinks, wrt=("x", "y"))


@gradc.export
def float_floordiv(x: f64, y: f64) -> f64:  # x // y is piecewise constant
    return (x // y) * x + (x * x) // 1.5 + y


d_float_floordiv = gradc.grad(float_floordiv, wrt=("x", "y"))
t_float_floordiv = gradc.jvp(float_floordiv, wrt=("x", "y"))


@gradc.export
def fmod_edges(x: f64, y: f64) -> f64:  # ∂x 1, ∂y -trunc(x/y); jumps where x/y is an integer
    return math.fmod(x, y) * 2.0 + x


d_fmod_edges = gradc.grad(fmod_edges, wrt=("x", "y"))
t_fmod_edges = gradc.jvp(fmod_edges, wrt=("x", "y"))


@gradc.export
def np_domain(x: f64) -> f64:  # NumPy never raises: nan/-inf inside, derivatives too
    return np.fmax(np.sqrt(x) + np.log(x) + np.arcsin(x), -1.0)  # fmax skips the nan


d_np_domain = gradc.grad(np_domain, wrt="x")
t_np_domain = gradc.jvp(np_domain, wrt="x")


@gradc.export
def np_max_unselected(x: f64) -> f64:  # sqrt'(0) = inf on the operand maximum did not pick
    return np.maximum(np.sqrt(np.abs(x)), 1.0) + np.fmin(x, np.nan) * 2.0


d_np_max_unselected = gradc.grad(np_max_unselected, wrt="x")
t_np_max_unselected = gradc.jvp(np_max_unselected, wrt="x")


@gradc.export
def np_kinks(x: f64) -> f64:  # abs' = sign, 0 at 0; sign' = 0
    return np.abs(x) * 3.0 + np.sign(x) * x + np.floor(x)


d_np_kinks = gradc.grad(np_kinks, wrt="x")
t_np_kinks = gradc.jvp(np_kinks, wrt="x")
