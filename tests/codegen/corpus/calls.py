"""Calls between functions of the module: recursion, mutual recursion through undecorated
helpers, helpers without annotations (typed from their call sites), exports calling
exports, exceptions propagating out of helpers, module-level constants, and Numba-style
signature strings.

No math functions here: every float result must match CPython bit for bit.
"""

import gradc
from gradc import f64, i64

SCALE = 2.5
OFFSET = 7
LIMIT = -3
TINY = 1e-3
ENABLED = True

DOMAINS = {
    "fib": {"n": (0, 18)},
    "fib_sum": {"n": (0, 15)},
    "power_by_squaring": {"x": (-3.0, 3.0), "n": (0, 40)},
    "ipow": {"b": (-6, 6), "n": (0, 20)},
    "parity": {"n": (-60, 60)},
    "ackermann": {"m": (0, 2), "n": (0, 6)},
    "sum_to": {"n": (0, 150)},
    "hanoi_moves": {"n": (0, 12)},
    "checked_sqrt_floor": {"n": (-5, 200)},
}


def _square(x):
    return x * x


def _poly(x: float, a: float) -> float:
    return (x + a) * x - a


def _is_even(n):
    if n == 0:
        return True
    return _is_odd(n - 1)


def _is_odd(n):
    if n == 0:
        return False
    return _is_even(n - 1)


def _minmax(a, b):
    if a < b:
        return a, b
    return b, a


def _safe_div(a, b):
    if b == 0:
        raise ValueError("division by zero")
    return a / b


def _checked(a):
    assert a >= 0, "negative"
    return a


def _raw_mod(a, b):
    return a % b


def _sign(x):
    if x > 0:
        return 1.0
    if x < 0:
        return -1.0
    return 0.0


@gradc.export
def use_helpers(x: f64) -> f64:
    return _square(x) + _poly(x, 2.0)


@gradc.export
def helper_two_types(n: i64, x: f64):
    # one undecorated helper used at two argument types
    return _square(n), _square(x)


@gradc.export
def fib(n: i64) -> i64:
    if n < 2:
        return n
    return fib(n - 1) + fib(n - 2)


@gradc.export
def fib_sum(n: i64) -> i64:
    # an export calling another export
    return fib(n) + fib(n + 1)


@gradc.export
def gcd(a: i64, b: i64) -> i64:
    if b == 0:
        return a
    return gcd(b, a % b)


@gradc.export
def power_by_squaring(x: f64, n: i64) -> f64:
    if n == 0:
        return 1.0
    h = power_by_squaring(x, n // 2)
    if n % 2 == 0:
        return h * h
    return h * h * x


@gradc.export
def ipow(b: i64, n: i64) -> i64:
    result = 1
    while n > 0:
        if n % 2 == 1:
            result *= b
        n //= 2
        if n == 0:
            break
        b *= b
    return result


@gradc.export
def parity(n: i64) -> bool:
    return _is_even(abs(n))


@gradc.export
def ackermann(m: i64, n: i64) -> i64:
    if m == 0:
        return n + 1
    if n == 0:
        return ackermann(m - 1, 1)
    return ackermann(m - 1, ackermann(m, n - 1))


@gradc.export
def sum_to(n: i64) -> i64:
    if n <= 0:
        return 0
    return n + sum_to(n - 1)


@gradc.export
def hanoi_moves(n: i64) -> i64:
    if n == 0:
        return 0
    return 2 * hanoi_moves(n - 1) + 1


@gradc.export
def sorted3(a: f64, b: f64, c: f64):
    lo, hi = _minmax(a, b)
    lo, mid = _minmax(lo, c)
    mid, hi = _minmax(mid, hi)
    return lo, mid, hi


@gradc.export
def safe_ratio(a: f64, b: f64) -> f64:
    # ValueError raised in a helper propagates
    return _safe_div(a, b) + 1.0


@gradc.export
def helper_assert(a: i64) -> i64:
    # AssertionError raised in a helper propagates
    return _checked(a) * 2


@gradc.export
def helper_zero_division(a: i64, b: i64) -> i64:
    # ZeroDivisionError raised in a helper propagates
    return _raw_mod(a, b) + 1


@gradc.export
def module_constants(x: f64) -> f64:
    return x * SCALE + OFFSET - TINY


@gradc.export
def int_constants(a: i64) -> i64:
    if ENABLED:
        return a * OFFSET + LIMIT
    return 0


@gradc.export
def sign_sum(x: f64, y: f64) -> f64:
    return _sign(x) + _sign(y) * 10.0


@gradc.export("f64(f64, i64)")
def sig_scaled(x, n):
    return x * n + SCALE


@gradc.export("i64(i64, i64)")
def sig_int_mix(a, b):
    return a * 3 - b // 2


@gradc.export("bool(f64, f64)")
def sig_closer_to_zero(x, y):
    return abs(x) < abs(y)


@gradc.export("f64(f64)")
def sig_helper_chain(x):
    return _poly(_square(x), SCALE)


@gradc.export
def checked_sqrt_floor(n: i64) -> i64:
    # integer square root by bisection; raises ValueError for negative n
    if n < 0:
        raise ValueError("negative")
    lo = 0
    hi = n + 1
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if mid * mid <= n:
            lo = mid
        else:
            hi = mid
    return lo
