"""Calls: undecorated helpers (typed from their call sites), helpers calling helpers
three levels deep, a helper called in a loop, helpers returning tuples (unpacked, and
indexed), an export calling another export, recursion on an int with a float carried
along (power by recursion and by squaring), recursion that accumulates, and a helper
taking an array.
"""

import math

import gradc
from gradc import f64, i64

DOMAINS = {
    "helper_in_loop": {"n": (0, 6)},
    "tuple_helper": {"r": (0.2, 3.0)},
    "recursive_power": {"x": (-1.5, 1.5), "n": (0, 7)},
    "power_by_squaring": {"x": (-1.5, 1.5), "n": (0, 12)},
    "recursive_sum": {"n": (0, 6)},
    "mutual_recursion": {"n": (0, 6)},
    "base_fn": {"y": (0.3, 3.0)},
    "export_calls_export": {"y": (0.3, 3.0)},
    "array_helper": {"a": (-2.0, 2.0)},
    "min_max_helper": {"x": (-2.0, 2.0), "y": (-2.0, 2.0)},
}

SHAPES = {"array_helper": {"a": ("n",)}}
DIMS = {"array_helper": {"n": (1, 5)}}

KINKS = {"min_max_helper": lambda x, y: (x - y,)}


def _sq(x):
    return x * x


def _level3(x, y):
    return math.sin(x) * y + _sq(y)


def _level2(x, y):
    return _level3(x * 2.0, y) - _sq(x)


def _level1(x, y):
    return math.exp(_level2(x, y) * 0.1) + _level3(y, x)


def _polar(r, theta):
    return r * math.cos(theta), r * math.sin(theta)


def _stats(x, y):
    m = 0.5 * (x + y)
    d = x - y
    return m, d * d, x * y


def _pow_rec(x, n):
    if n == 0:
        return 1.0
    return x * _pow_rec(x, n - 1)


def _sum_rec(x, n):
    if n <= 0:
        return 0.0
    return math.sin(x * n) + _sum_rec(x, n - 1)


def _even(x, n):
    if n == 0:
        return x
    return _odd(x * 1.1, n - 1) + 0.5


def _odd(x, n):
    if n == 0:
        return x * x
    return _even(math.sin(x), n - 1)


def _norm2(a):
    s = 0.0
    for i in range(len(a)):
        s += a[i] * a[i]
    return s


def _ordered(x, y):
    if x < y:
        return x, y
    return y, x


@gradc.export
def one_helper(x: f64) -> f64:
    return _sq(x) + _sq(x + 1.0)


@gradc.export
def three_levels(x: f64, y: f64) -> f64:
    return _level1(x, y)


@gradc.export
def helper_in_loop(x: f64, n: i64) -> f64:
    s = 0.0
    for i in range(n):
        s += _level3(x, s * 0.1 + i)
    return s


@gradc.export
def tuple_helper(r: f64, theta: f64) -> f64:
    a, b = _polar(r, theta)
    return a * a * b + b


@gradc.export
def tuple_indexed(x: f64, y: f64) -> f64:
    t = _stats(x, y)
    return t[0] * t[1] + t[2]


@gradc.export
def recursive_power(x: f64, n: i64) -> f64:
    return _pow_rec(x, n)


@gradc.export
def power_by_squaring(x: f64, n: i64) -> f64:
    if n == 0:
        return 1.0
    h = power_by_squaring(x, n // 2)
    if n % 2 == 0:
        return h * h
    return h * h * x


@gradc.export
def recursive_sum(x: f64, n: i64) -> f64:
    return _sum_rec(x, n)


@gradc.export
def mutual_recursion(x: f64, n: i64) -> f64:
    return _even(x, n)


@gradc.export
def base_fn(x: f64, y: f64) -> f64:
    return x * math.log(y) + y


@gradc.export
def export_calls_export(x: f64, y: f64) -> f64:
    return base_fn(x * x, y) * base_fn(y, 2.0 + x * x)


@gradc.export
def array_helper(a: f64[:], s: f64) -> f64:
    return _norm2(a) * s + s * s


@gradc.export
def min_max_helper(x: f64, y: f64) -> f64:
    lo, hi = _ordered(x, y)
    return lo * 2.0 + hi * hi * hi


d_one_helper = gradc.grad(one_helper, wrt=("x",))
t_one_helper = gradc.jvp(one_helper, wrt=("x",))
d_three_levels = gradc.grad(three_levels, wrt=("x", "y"))
t_three_levels = gradc.jvp(three_levels, wrt=("x", "y"))
d_helper_in_loop = gradc.grad(helper_in_loop, wrt=("x",))
t_helper_in_loop = gradc.jvp(helper_in_loop, wrt=("x",))
d_tuple_helper = gradc.grad(tuple_helper, wrt=("r", "theta"))
t_tuple_helper = gradc.jvp(tuple_helper, wrt=("r", "theta"))
d_tuple_indexed = gradc.grad(tuple_indexed, wrt=("x", "y"))
t_tuple_indexed = gradc.jvp(tuple_indexed, wrt=("x", "y"))
d_recursive_power = gradc.grad(recursive_power, wrt=("x",))
t_recursive_power = gradc.jvp(recursive_power, wrt=("x",))
d_power_by_squaring = gradc.grad(power_by_squaring, wrt=("x",))
t_power_by_squaring = gradc.jvp(power_by_squaring, wrt=("x",))
d_recursive_sum = gradc.grad(recursive_sum, wrt=("x",))
t_recursive_sum = gradc.jvp(recursive_sum, wrt=("x",))
d_mutual_recursion = gradc.grad(mutual_recursion, wrt=("x",))
t_mutual_recursion = gradc.jvp(mutual_recursion, wrt=("x",))
d_base_fn = gradc.grad(base_fn, wrt=("x", "y"))
t_base_fn = gradc.jvp(base_fn, wrt=("x", "y"))
d_export_calls_export = gradc.grad(export_calls_export, wrt=("x", "y"))
t_export_calls_export = gradc.jvp(export_calls_export, wrt=("x", "y"))
d_array_helper = gradc.grad(array_helper, wrt=("a", "s"))
t_array_helper = gradc.jvp(array_helper, wrt=("a", "s"))
d_min_max_helper = gradc.grad(min_max_helper, wrt=("x", "y"))
t_min_max_helper = gradc.jvp(min_max_helper, wrt=("x", "y"))
