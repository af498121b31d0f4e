"""Functions passed as arguments to helpers (specialised per function, as Numba does):
module-level helpers, ``math`` and NumPy functions, by position and by keyword, passed on
to another helper, several function parameters, the same helper with different
functions, a helper recursing with its function parameter, and a function bound to a
variable (``g = _square``) called and passed.
"""

import math

import numpy as np

import gradc
from gradc import f64, i64

DOMAINS = {
    "fold": {"n": (0, 12)},
    "library_math": {"x": (-3.0, 3.0)},
    "library_numpy": {"x": (-3.0, 3.0)},
    "library_composed": {"x": (0.0, 3.0)},
    "recursive_apply": {"n": (0, 8)},
}


def _twice(x):
    return 2.0 * x


def _square(x):
    return x * x


def _add(a, b):
    return a + b


def _mul(a, b):
    return a * b


def _apply(f, x):
    return f(x)


def _apply_twice(f, x):
    return _apply(f, _apply(f, x))


def _compose(f, g, x):
    return f(g(x))


def _reduce(op, n, start):
    acc = start
    for i in range(n):
        acc = op(acc, i + 1)
    return acc


def _repeat(f, n, x):
    if n == 0:
        return x
    return _repeat(f, n - 1, f(x))


@gradc.export
def apply_helpers(x: f64) -> f64:
    return _apply(_twice, x) + _apply(_square, x)


@gradc.export
def apply_int(n: i64) -> i64:
    return _apply(_square, n) - _apply(f=_square, x=n + 1)


@gradc.export
def passed_on(x: f64) -> f64:
    return _apply_twice(_twice, x) - _apply_twice(x=x, f=_square)


@gradc.export
def two_functions(x: f64) -> f64:
    return _compose(_square, _twice, x) + _compose(g=_square, f=_twice, x=x)


@gradc.export
def fold(n: i64) -> tuple[i64, i64]:
    return _reduce(_add, n, 0), _reduce(_mul, n, 1)


@gradc.export
def library_math(x: f64) -> f64:
    return _apply(math.sin, x)


@gradc.export
def library_numpy(x: f64) -> f64:
    return _apply(np.cos, x)


@gradc.export
def library_composed(x: f64) -> f64:
    return _compose(math.exp, np.sqrt, x)


@gradc.export
def aliases(x: f64) -> f64:
    g = _square
    h = math.cos
    k = g
    return _apply(k, x) + h(x) - g(x + 1.0)


@gradc.export
def recursive_apply(x: f64, n: i64) -> f64:
    return _repeat(_twice, n, x)
