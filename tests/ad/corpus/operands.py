"""Every way a float operand reaches a float result (issue #18, class 5 audit): the fill
value of ``np.full``/``np.full_like`` (also returned by a helper, in a loop, then
overwritten), tuples packed and unpacked (with int elements), carried around a loop and passed
to helpers, helpers taking and returning floats, tuples and new arrays, active values stored into local arrays, the
``min``/``max``/``abs`` builtins with int operands, ``math.floor``/``ceil``/``trunc``
(zero derivative) and the ``math.is*`` tests, ``float()``/int-to-float casts, ``or``
on floats, conditional expressions, ``**`` with int and float exponents, augmented element
assignment, and a copy that is then written.

Before the audit the fill value of ``np.full`` carried no derivative in either mode.
"""

import math

import numpy as np

import gradc
from gradc import f64, i64

DOMAINS = {
    "full_2d": {"n": (1, 3)},
    "full_in_loop": {"n": (0, 4)},
    "helper_new_array": {"n": (1, 4)},
    "store_into_local": {"n": (0, 3)},
    "or_on_floats": {"x": (-2.0, 2.0)},
    "powers": {"x": (0.3, 2.0)},
    "int_float_mix": {"n": (-3, 3)},
    "tuple_loop": {"x": (-1.2, 1.2), "n": (0, 4)},
}

SHAPES = {
    "full_fill": {"a0": (2,)},
    "full_like_fill": {"a": ("n",)},
    "elem_aug_assign": {"a": (3,)},
    "copy_then_write": {"a": (2, 2)},
}
DIMS = {"full_like_fill": {"n": (0, 4)}}

KINKS = {
    "min_max_mixed": lambda x, y: (x - 2.0, y - x, y - 0.5, x - 0.5, x - 1.0, x, y),
    "or_on_floats": lambda x, y: (x,),
    "conditional_expression": lambda x, y: (x - y,),
    "rounding_and_tests": lambda x, y: (
        x - round(x),
        y - round(y),
        x * y - round(x * y),
    ),
}


@gradc.export
def full_fill(a0: f64[:], y1: f64) -> f64:
    t9 = np.full(3, y1)
    return t9[1]


@gradc.export
def full_2d(y: f64, n: i64) -> f64:
    a = np.full((2, n), y * y)
    a[0, 0] = 3.0 * y
    s = 0.0
    for i in range(2):
        for j in range(n):
            s += a[i, j] * (i + j + 1)
    return s


@gradc.export
def full_like_fill(a: f64[:], y: f64) -> f64:
    b = np.full_like(a, math.sin(y))
    s = y
    for i in range(len(a)):
        s += b[i] * a[i]
    return s


def _filled(n, y):
    return np.full(n, y * 2.0)


@gradc.export
def helper_new_array(y: f64, n: i64) -> f64:
    b = _filled(n, y)
    return b[0] * b[n - 1] + y


@gradc.export
def full_in_loop(x: f64, n: i64) -> f64:
    s = x
    for k in range(n):
        b = np.full(2, x * k)
        s += b[0] * b[1]
    return s


@gradc.export
def full_overwritten(x: f64, y: f64) -> f64:
    b = np.full(3, y)
    b[1] = x
    return b[0] + b[1] * b[2]


@gradc.export
def tuple_pack_unpack(x: f64, y: f64) -> f64:
    t = (x * y, 2, y)
    a, k, c = t
    return a * c + k * t[0]


def _three(x, y, n):
    return x * y, n, x + y


@gradc.export
def helper_tuple(x: f64, y: f64) -> f64:
    p, n, s = _three(x, y, 3)
    q = _three(s, p, n)
    return p * s + q[0] + q[2] * n


def _fill_local(out, v):
    out[0] = v
    out[1] = v * v


def _tuple_param(p, k):
    a, n, b = p
    return a * b + k * n


@gradc.export
def tuple_argument(x: f64, y: f64) -> f64:
    return _tuple_param((x, 2, y * 2.0), 3.0) + _tuple_param((y, 1, x), x)


@gradc.export
def tuple_loop(x: f64, n: i64) -> f64:
    t = (x, 1)
    for i in range(n):
        t = (t[0] * x + 1.0, t[1] + i)
    return t[0] * t[1]


@gradc.export
def store_into_local(x: f64, n: i64) -> f64:
    a = np.zeros(n + 2)
    _fill_local(a, x)
    a[n + 1] = math.exp(x)
    s = 0.0
    for i in range(n + 2):
        s += a[i] * (i + 1)
    return s


@gradc.export
def min_max_mixed(x: f64, y: f64) -> f64:
    return min(x, 2) * max(y, x, 0.5) + max(1, x) + abs(x) * abs(y)


@gradc.export
def int_float_mix(x: f64, y: f64, n: i64) -> f64:
    return n * x + float(n) * y + n / 2 * y * x


@gradc.export
def or_on_floats(x: f64, y: f64) -> f64:
    return (x or y) * 2.0 + (0.0 or y) * x


@gradc.export
def conditional_expression(x: f64, y: f64) -> f64:
    z = x * x if x > y else y * 2.0
    return z + (z if z > 100.0 else -z) * 0.5


@gradc.export
def powers(x: f64, y: f64) -> f64:
    return x**3 + 2.0**y + x**y + x ** (-2)


@gradc.export
def rounding_and_tests(x: f64, y: f64) -> f64:
    r = math.floor(x) * y + math.ceil(y) * x + math.trunc(x * y) * x
    if math.isfinite(y) and not math.isinf(x) and not math.isnan(x):
        r += x * y
    return r


@gradc.export
def elem_aug_assign(a: f64[:], x: f64) -> f64:
    for i in range(3):
        a[i] += x * a[i]
    a[1] *= a[0]
    return a[0] + a[1] + a[2] * x


@gradc.export
def copy_then_write(a: f64[:, :], x: f64) -> f64:
    c = a.copy()
    c[0, 1] = x * c[1, 0]
    return c[0, 1] * a[0, 1] + c[1, 1]


d_full_fill = gradc.grad(full_fill, wrt=("a0", "y1"))
t_full_fill = gradc.jvp(full_fill, wrt=("a0", "y1"))
d_full_2d = gradc.grad(full_2d, wrt=("y",))
t_full_2d = gradc.jvp(full_2d, wrt=("y",))
d_full_like_fill = gradc.grad(full_like_fill, wrt=("a", "y"))
t_full_like_fill = gradc.jvp(full_like_fill, wrt=("a", "y"))
d_helper_new_array = gradc.grad(helper_new_array, wrt=("y",))
t_helper_new_array = gradc.jvp(helper_new_array, wrt=("y",))
d_full_in_loop = gradc.grad(full_in_loop, wrt=("x",))
t_full_in_loop = gradc.jvp(full_in_loop, wrt=("x",))
d_full_overwritten = gradc.grad(full_overwritten, wrt=("x", "y"))
t_full_overwritten = gradc.jvp(full_overwritten, wrt=("x", "y"))
d_tuple_pack_unpack = gradc.grad(tuple_pack_unpack, wrt=("x", "y"))
t_tuple_pack_unpack = gradc.jvp(tuple_pack_unpack, wrt=("x", "y"))
d_helper_tuple = gradc.grad(helper_tuple, wrt=("x", "y"))
t_helper_tuple = gradc.jvp(helper_tuple, wrt=("x", "y"))
d_tuple_argument = gradc.grad(tuple_argument, wrt=("x", "y"))
t_tuple_argument = gradc.jvp(tuple_argument, wrt=("x", "y"))
d_tuple_loop = gradc.grad(tuple_loop, wrt=("x",))
t_tuple_loop = gradc.jvp(tuple_loop, wrt=("x",))
d_store_into_local = gradc.grad(store_into_local, wrt=("x",))
t_store_into_local = gradc.jvp(store_into_local, wrt=("x",))
d_min_max_mixed = gradc.grad(min_max_mixed, wrt=("x", "y"))
t_min_max_mixed = gradc.jvp(min_max_mixed, wrt=("x", "y"))
d_int_float_mix = gradc.grad(int_float_mix, wrt=("x", "y"))
t_int_float_mix = gradc.jvp(int_float_mix, wrt=("x", "y"))
d_or_on_floats = gradc.grad(or_on_floats, wrt=("x", "y"))
t_or_on_floats = gradc.jvp(or_on_floats, wrt=("x", "y"))
d_conditional_expression = gradc.grad(conditional_expression, wrt=("x", "y"))
t_conditional_expression = gradc.jvp(conditional_expression, wrt=("x", "y"))
d_powers = gradc.grad(powers, wrt=("x", "y"))
t_powers = gradc.jvp(powers, wrt=("x", "y"))
d_rounding_and_tests = gradc.grad(rounding_and_tests, wrt=("x", "y"))
t_rounding_and_tests = gradc.jvp(rounding_and_tests, wrt=("x", "y"))
d_elem_aug_assign = gradc.grad(elem_aug_assign, wrt=("a", "x"))
t_elem_aug_assign = gradc.jvp(elem_aug_assign, wrt=("a", "x"))
d_copy_then_write = gradc.grad(copy_then_write, wrt=("a", "x"))
t_copy_then_write = gradc.jvp(copy_then_write, wrt=("a", "x"))
