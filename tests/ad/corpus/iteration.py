"""Floats through loops over enumerate/zip/reversed of arrays and ranges, and over tuple
literals (unrolled, with continue and break on ints): derivatives with respect to scalars
and array elements.
"""

import gradc
from gradc import f64, i64

DOMAINS = {
    "enumerate_poly": {"k": (-2, 2)},
    "zip_weighted": {},
    "reversed_horner": {},
    "tuple_literal_mix": {"n": (0, 4)},
    "reversed_range_decay": {"n": (0, 6)},
}
SHAPES = {
    "enumerate_poly": {"a": (4,)},
    "zip_weighted": {"a": (4,), "b": (3,)},
    "reversed_horner": {"c": (5,)},
}


@gradc.export
def enumerate_poly(a: f64[:], x: f64, k: i64) -> f64:
    s = 0.0
    for i, v in enumerate(a, start=k):
        s += v * x**2 * i + v * v
    return s


@gradc.export
def zip_weighted(a: f64[:], b: f64[:], x: f64) -> f64:
    s = 0.0
    for u, j, v in zip(a, range(3), b):
        s = s * x + u * v * (j + 1)
    return s


@gradc.export
def reversed_horner(c: f64[:], x: f64) -> f64:
    s = 0.0
    for v in reversed(c):
        s = s * x + v
    return s


@gradc.export
def tuple_literal_mix(x: f64, y: f64, n: i64) -> f64:
    s = 1.0
    for v in (x, y * x, 2.0 * y, x - y):
        for j in range(n):
            if j == 2:
                break
            s = s * 0.5 + v * v
    return s


@gradc.export
def reversed_range_decay(x: f64, n: i64) -> f64:
    s = x
    for i in reversed(range(1, n + 1)):
        s = s * x / i + 1.0
    return s


d_enumerate_poly = gradc.grad(enumerate_poly, wrt=("a", "x"))
t_enumerate_poly = gradc.jvp(enumerate_poly, wrt=("a", "x"))
d_zip_weighted = gradc.grad(zip_weighted, wrt=("a", "b", "x"))
t_zip_weighted = gradc.jvp(zip_weighted, wrt=("a", "b", "x"))
d_reversed_horner = gradc.grad(reversed_horner, wrt=("c", "x"))
t_reversed_horner = gradc.jvp(reversed_horner, wrt=("c", "x"))
d_tuple_literal_mix = gradc.grad(tuple_literal_mix, wrt=("x", "y"))
t_tuple_literal_mix = gradc.jvp(tuple_literal_mix, wrt=("x", "y"))
d_reversed_range_decay = gradc.grad(reversed_range_decay, wrt=("x",))
t_reversed_range_decay = gradc.jvp(reversed_range_decay, wrt=("x",))


def _moments(x, y):
    return x, x * y, y * y


@gradc.export
def tuple_value_loop(x: f64, y: f64) -> f64:
    s = 0.0
    for i, v in enumerate(_moments(x, y)):
        s = s * y + v * (i + 1)
    for v in reversed(_moments(y, x)):
        s = s * x + v
    return s


d_tuple_value_loop = gradc.grad(tuple_value_loop, wrt=("x", "y"))
t_tuple_value_loop = gradc.jvp(tuple_value_loop, wrt=("x", "y"))
