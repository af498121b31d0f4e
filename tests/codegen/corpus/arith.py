"""Arithmetic with Python semantics: + - * / // % ** on ints and floats, unary operators,
augmented assignment.

No math functions here: every float result must match CPython bit for bit.
Ints stay far below 2**63 for every input in DOMAINS (gradc's ints wrap at 64 bits).
"""

import gradc
from gradc import bool_, f64, i64

DOMAINS = {
    "int_pow": {"a": (-10, 10), "n": (0, 15)},
    "int_pow_chain": {"a": (-6, 6), "n": (0, 4)},
    "aug_assign_int": {"a": (-1000, 1000), "b": (-1000, 1000)},
    "big_products": {"a": (-3000, 3000), "b": (-3000, 3000)},
    "float_floor_div": {"x": (-1e6, 1e6), "y": (-10.0, 10.0)},
    "float_mod": {"x": (-1e6, 1e6), "y": (-10.0, 10.0)},
}


@gradc.export
def add_sub_mul(a: i64, b: i64, c: i64) -> i64:
    return a + b * c - (a - c) * 3


@gradc.export
def float_basic(x: f64, y: f64) -> f64:
    return x * y + x - y / 4.0


@gradc.export
def int_true_div(a: i64, b: i64) -> f64:
    return a / b


@gradc.export
def int_by_float_div(a: i64, b: f64) -> f64:
    return a / b  # b == 0.0: "float division by zero", as float / int


@gradc.export
def float_by_int_div(a: f64, b: i64) -> f64:
    return a / b


@gradc.export
def bool_true_div(a: bool_, b: bool_) -> f64:
    return a / b  # bool is int: "division by zero"


@gradc.export
def int_floor_div(a: i64, b: i64) -> i64:
    return a // b


@gradc.export
def int_mod(a: i64, b: i64) -> i64:
    return a % b


@gradc.export
def int_divmod_identity(a: i64, b: i64):
    q = a // b
    r = a % b
    return q, r, q * b + r == a


@gradc.export
def float_true_div(x: f64, y: f64) -> f64:
    return x / y


@gradc.export
def float_floor_div(x: f64, y: f64) -> f64:
    return x // y


@gradc.export
def float_mod(x: f64, y: f64) -> f64:
    return x % y


@gradc.export
def mixed_int_float(a: i64, x: f64) -> f64:
    return a * x + a - x / 2


@gradc.export
def mixed_div(a: i64, x: f64):
    return a / x, x / a, a // x, x % a


@gradc.export
def int_pow(a: i64, n: i64) -> i64:
    return a**n


@gradc.export
def int_pow_chain(a: i64, n: i64) -> i64:
    # ** is right-associative: a ** (n ** 2)
    return a**n**2 + (-a) ** n - 2**n


@gradc.export
def unary_ops(a: i64, x: f64):
    return -a, +a, -x, +x, -(-x), -(a - 3)  # noqa: B002


@gradc.export
def aug_assign_int(a: i64, b: i64) -> i64:
    r = a
    r += b
    r *= 3
    r -= a
    r //= 2
    r %= 1009
    r **= 2
    return r


@gradc.export
def aug_assign_float(x: f64, y: f64) -> f64:
    r = x
    r += y
    r *= 0.5
    r -= y
    r /= 3.0
    r //= 0.25
    r %= 10.0
    return r


@gradc.export
def aug_div_by_arg(x: f64, y: f64) -> f64:
    r = x + 1.0
    r /= y
    return r


@gradc.export
def aug_mod_by_arg(a: i64, b: i64) -> i64:
    r = 100 + a
    r %= b
    r //= 3
    return r


@gradc.export
def constant_semantics():
    return (
        -7 // 2,
        -7 % 2,
        7 // -2,
        7 % -2,
        -7.5 // 2.0,
        -7.5 % 2.0,
        7.5 % -2.0,
        7 / 2,
        -(2**10),
        (-2) ** 3,
    )


@gradc.export
def big_products(a: i64, b: i64) -> i64:
    return a * b * 1000 - (a + b) * 1000003


@gradc.export
def precedence(a: i64, b: i64, x: f64) -> f64:
    return a - b - 3 + x * 2 - a * b % 7 + -x / 4


@gradc.export
def float_literals(x: f64) -> f64:
    return x * 1e-3 + 2.5e2 - 0.1 + 3
