"""Default parameter values of helpers: int, float and bool literals, negative literals,
module constants and constant expressions over them; calls that omit some or all of them;
a default whose type differs from the argument some calls pass (each call specialises).

No math functions here: every float result must match CPython bit for bit.
"""

import gradc
from gradc import boolean, f64, i64

N = 3
SCALE = 2.5
HALF_SCALE = SCALE / 2

DOMAINS = {
    "poly_defaults": {"n": (0, 30)},
    "keyword_arguments": {"n": (-20, 30)},
}


def _affine(x, a=SCALE, b=-1, c=HALF_SCALE * 4):
    return a * x + b - c


def _power(x, n=N, flag=True):
    r = 1.0
    for _ in range(n):
        r *= x
    if flag:
        return r
    return -r


def _count(n, step=1, start=0):
    s = 0
    for i in range(start, n, step):
        s += i
    return s


@gradc.export
def affine_defaults(x: f64) -> f64:
    return _affine(x) + _affine(x, 0.5) + _affine(x, 0.5, 2) + _affine(x, 1.0, 2.0, 3.0)


@gradc.export
def int_default_float_argument(x: f64, k: i64):
    # b=-1 (int) in one call, a float in the other: one specialisation each
    return _affine(k), _affine(x, 1, x)


@gradc.export
def poly_defaults(x: f64, n: i64) -> f64:
    return _power(x) - _power(x, n % 5) + _power(x, 2, False)


@gradc.export
def bool_default(x: f64, flag: boolean) -> f64:
    return _power(x, 2, flag) + _power(x, 1)


@gradc.export
def int_defaults(n: i64) -> i64:
    return _count(n) * 7 + _count(n, 3) - _count(n, 2, -5)


@gradc.export
def keyword_arguments(x: f64, n: i64) -> f64:
    # keywords in any order, skipping defaults; evaluated in source order
    return (
        _affine(x, c=0.25)
        + _affine(b=n, x=x)
        + _power(x, flag=n > 3)
        + _count(n, start=-3) * 0.5
        + _affine(c=x, a=2.0, x=n, b=1)
    )
