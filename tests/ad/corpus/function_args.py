"""Functions passed as arguments to helpers (specialised per function): a helper applying
a user function, a ``math`` or NumPy function, two function parameters (composition),
a function passed by keyword and passed on to another helper, a fold over a loop with a
binary function bound to a variable first, and an array helper mapping a function over the elements.
"""

import math

import numpy as np

import gradc
from gradc import f64, i64

DOMAINS = {
    "fold": {"n": (0, 5)},
    "library": {"x": (0.2, 2.0)},
}

SHAPES = {"mapped": {"a": ("n",)}}
DIMS = {"mapped": {"n": (1, 5)}}


def _cube(x):
    return x * x * x


def _damped(x, y):
    return math.sin(x) * y + 0.5 * x


def _apply(f, x):
    return f(x)


def _apply_on(f, x):
    return _apply(x=x, f=f) * x


def _compose(f, g, x):
    return f(g(x))


def _fold(op, x, n):
    acc = x
    for _ in range(n):
        acc = op(acc, x)
    return acc


def _map_sum(f, a):
    s = 0.0
    for i in range(a.shape[0]):
        s += f(a[i])
    return s


@gradc.export
def user_function(x: f64, y: f64) -> f64:
    return _apply(_cube, x) * y + _apply_on(_cube, y)


@gradc.export
def library(x: f64) -> f64:
    return _apply(math.log, x) + _compose(np.tanh, math.exp, x) + _compose(_cube, np.sin, x)


@gradc.export
def fold(x: f64, n: i64) -> f64:
    op = _damped
    return _fold(op, x, n)


@gradc.export
def mapped(a: f64[:], y: f64) -> f64:
    return _map_sum(_cube, a) * y + _map_sum(math.cos, a)


d_user_function = gradc.grad(user_function, wrt=("x", "y"))
t_user_function = gradc.jvp(user_function, wrt=("x", "y"))
d_library = gradc.grad(library, wrt=("x",))
t_library = gradc.jvp(library, wrt=("x",))
d_fold = gradc.grad(fold, wrt=("x",))
t_fold = gradc.jvp(fold, wrt=("x",))
d_mapped = gradc.grad(mapped, wrt=("a", "y"))
t_mapped = gradc.jvp(mapped, wrt=("a", "y"))
