"""Loops over iterables other than range(...): enumerate over a range (start positional
and keyword), zip of ranges (stops at the shortest), reversed(range(...)) with positive
and negative constant steps, tuple literals (unrolled, with break/continue/else), and
loop targets that are tuples or names bound to tuples.

No math functions here: every float result must match CPython bit for bit.
"""

import gradc
from gradc import f64, i64

DOMAINS = {
    "enumerate_range": {"n": (-5, 60), "k": (-20, 20)},
    "enumerate_keyword_start": {"n": (-3, 40)},
    "enumerate_tuple_target": {"n": (-3, 40)},
    "zip_ranges": {"n": (-5, 60), "m": (-5, 60)},
    "zip_three": {"n": (-5, 40)},
    "reversed_range": {"a": (-30, 30), "b": (-30, 30)},
    "reversed_range_negative_step": {"a": (-30, 30), "b": (-30, 30)},
    "reversed_break_else": {"n": (-3, 50), "stop": (-5, 50)},
    "tuple_literal_ints": {"a": (-1000, 1000)},
    "runtime_step_ranges": {"a": (-40, 40), "b": (-40, 40), "c": (-6, 6)},
}


@gradc.export
def enumerate_range(n: i64, k: i64) -> i64:
    s = 0
    for i, v in enumerate(range(n), k):
        s = (s * 31 + i * 7 - v) % 1000003
    return s


@gradc.export
def enumerate_keyword_start(n: i64) -> i64:
    s = 0
    for i, v in enumerate(range(2, n, 3), start=-4):
        s += i * v
    return s


@gradc.export
def enumerate_tuple_target(n: i64) -> i64:
    s = 0
    for pair in enumerate(range(n, 0, -2)):
        s = s * 3 % 10007 + pair[0] - pair[1]
    return s


@gradc.export
def zip_ranges(n: i64, m: i64):
    s = 0
    count = 0
    for x, y in zip(range(n), range(m, -m, -1)):
        s += x * y
        count += 1
    return s, count


@gradc.export
def zip_three(n: i64) -> i64:
    s = 0
    for x, y, z in zip(range(n), range(1, 2 * n, 2), range(100, 0, -7)):
        s = (s + x * y - z) % 99991
    return s


@gradc.export
def reversed_range(a: i64, b: i64) -> i64:
    s = 0
    for i in reversed(range(a, b, 3)):
        s = s * 2 % 1000003 + i
    for i in reversed(range(b)):
        s = s * 2 % 1000003 - i
    return s


@gradc.export
def reversed_range_negative_step(a: i64, b: i64) -> i64:
    s = 0
    for i in reversed(range(a, b, -4)):
        s = s * 3 % 1000003 + i
    return s


@gradc.export
def reversed_break_else(n: i64, stop: i64) -> i64:
    s = 0
    for i in reversed(range(n)):
        if i == stop:
            break
        s += i
    else:
        s = -s
    return s


@gradc.export
def tuple_literal_ints(a: i64) -> i64:
    s = 0
    for v in (a, a * 2, 7, -a):
        if v == 7:
            continue
        s = s * 5 + v
    return s


@gradc.export
def tuple_literal_floats(x: f64, y: f64) -> f64:
    s = 0.0
    for v in (x, y, x * y, 0.5):
        if v < -50.0:
            break
        s = s * 0.5 + v
    else:
        s = s + 1000.0
    return s


@gradc.export
def tuple_literal_pairs(x: f64, y: f64) -> f64:
    s = 0.0
    for a, b in ((x, y), (y, 1.5), (2.0, x)):
        s = s * a - b
    return s


@gradc.export
def tuple_literal_empty_else(x: f64) -> f64:
    for v in ():
        x = x + v
    else:
        x = x * 2.0
    return x


def _triple(x):
    return x, x * 0.5, -x


@gradc.export
def tuple_value_floats(x: f64, y: f64) -> f64:
    t = _triple(x - y)
    s = 0.0
    for v in t:
        if v > 40.0:
            break
        s = s * 0.75 + v
    for i, v in enumerate(t, 1):
        s += i * v
    for v in reversed(t):
        s = s * 0.5 - v
    return s


@gradc.export
def tuple_value_ints(a: i64, b: i64):
    t = (a, b, a - b, 7)
    s = 0
    for v in t:
        if v == 7:
            continue
        s = s * 3 + v
    for u, w in zip(t, range(2, 100, 3)):
        s = s - u * w
    return s, len(t)


@gradc.export
def loop_over_helper_result(x: f64) -> f64:
    s = 0.0
    for v in _triple(x):
        s = s * 2.0 + v
    for i, v in enumerate(_triple(s)):
        s = s + i * v
    return s


@gradc.export
def runtime_step_ranges(a: i64, b: i64, c: i64) -> i64:
    # c == 0 raises ValueError("range() arg 3 must not be zero") before either loop
    s = 0
    for i in reversed(range(a, b, c)):
        s = s * 3 % 1000003 + i
    for k, i in enumerate(range(b, a, c)):
        s = s * 5 % 1000003 + k * i
    return s
