"""Tuples: packing, unpacking, swaps, nested tuples, tuples through helpers and branches,
tuples in loops, mixed element types.

No math functions here: every float result must match CPython bit for bit.
"""

import gradc
from gradc import boolean, f64, i64

DOMAINS = {
    "fib_pair": {"n": (0, 80)},
    "running_min_max": {"n": (0, 60)},
    "divmod_helper": {"b": (-7, 7)},
}


def _divmod(a, b):
    return a // b, a % b


def _classify(x):
    if x < 0.0:
        return -1, -x
    if x == 0.0:
        return 0, 0.0
    return 1, x


def _stats(a, b, c):
    lo = min(a, b, c)
    hi = max(a, b, c)
    return lo, hi, hi - lo


@gradc.export
def swap(a: i64, b: i64):
    a, b = b, a
    return a, b


@gradc.export
def rotate3(x: f64, y: f64, z: f64):
    x, y, z = y, z, x
    return x, y, z


@gradc.export
def pack_unpack(x: f64, y: f64):
    t = (x, y)
    u, v = t
    return v - u, u * v


@gradc.export
def single_element(x: f64):
    return (x + 1.0,)


@gradc.export
def nested_return(x: f64, n: i64):
    return (x, (n, x * 2.0))


@gradc.export
def nested_unpack(x: f64, y: f64, z: f64) -> f64:
    a, (b, c) = (x, (y, z))
    return a - b * c


@gradc.export
def divmod_helper(a: i64, b: i64):
    q, r = _divmod(a, b)
    return q, r, q * b + r == a


@gradc.export
def tuple_from_branches(x: f64, y: f64):
    if x < y:
        t = (x, y)
    else:
        t = (y, x)
    lo, hi = t
    return lo, hi


@gradc.export
def tuple_cond_expr(x: f64, y: f64):
    lo, hi = (x, y) if x < y else (y, x)
    return hi - lo, lo


@gradc.export
def classify_helper(x: f64):
    s, mag = _classify(x)
    return s, mag, s * mag


@gradc.export
def stats_helper(a: i64, b: i64, c: i64):
    lo, hi, span = _stats(a, b, c)
    return lo, hi, span


@gradc.export
def mixed_types(a: i64, x: f64, flag: boolean):
    return a, x, flag, not flag, a * x


@gradc.export
def fib_pair(n: i64):
    a, b = 0, 1
    for _ in range(n):
        a, b = b, a + b
    return a, b


@gradc.export
def running_min_max(n: i64, x: f64):
    lo, hi = x, x
    v = x
    for i in range(n):
        v = v * 0.75 + (i % 7) - 3.0
        if v < lo:
            lo = v
        if v > hi:
            hi = v
    return lo, hi


@gradc.export
def swap_in_loop(a: i64, b: i64) -> i64:
    for _ in range(5):
        a, b = b, a - b
    return a * 100 + b


@gradc.export
def aug_on_unpacked(x: f64, y: f64):
    a, b = x, y
    a += b
    b *= a
    return a, b


@gradc.export
def tuple_passthrough(a: i64, b: i64):
    t = _divmod(a * a + 1, 3)
    return t
