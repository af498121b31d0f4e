"""Loops that reverse mode may run in checkpointed segments (``--tape-budget``,
passes/ad/segments.py): scalar recurrences, loops reading arrays, nested loops, loops
calling helpers, a loop whose body may raise; and the loops it must tape whole
(``while``, ``break``, a loop writing an array). tests/ad/test_ad_tape_budget.py builds this module with a budget of 1
byte (every segmentable loop of two or more iterations segmented) and compares with the
whole-tape build and finite differences.
"""

import math

import gradc
from gradc import f64, i64

DOMAINS = {
    "recurrence": {"c": (-1.0, 1.0), "n": (0, 12)},
    "two_carried": {"x": (-1.0, 1.0), "n": (0, 12)},
    "offset_range": {"a": (-3, 3), "b": (0, 9)},
    "reads_array": {"n": (0, 6)},
    "nested": {"n": (0, 5), "m": (0, 5)},
    "calls_helper": {"c": (-1.0, 1.0), "n": (0, 10)},
    "may_raise": {"x": (0.1, 1.0), "n": (0, 10)},
    "clock": {"n": (0, 10)},
    "while_unknown": {"x": (0.3, 20.0)},
    "with_break": {"n": (0, 10), "stop": (0, 10)},
    "writes_array": {"n": (0, 6)},
}

SHAPES = {"reads_array": {"w": ("n",)}, "writes_array": {"a": ("n",)}}


def _log2_frac(x):
    t = math.log2(x)
    return t - round(t)


KINKS = {"while_unknown": lambda x: (_log2_frac(x),)}


@gradc.export
def recurrence(x: f64, c: f64, n: i64) -> f64:
    s = 0.0
    for _ in range(n):
        x = math.sin(x * c) + 0.5 * x
        s = s + x * x
    return s + x


@gradc.export
def two_carried(x: f64, y: f64, n: i64) -> f64:
    k = 0
    for i in range(n):
        x, y = 0.9 * y + 0.1 * math.cos(x), 0.9 * x - 0.05 * y * i
        k = k + i
    return x * y + k


@gradc.export
def offset_range(x: f64, a: i64, b: i64) -> f64:
    for i in range(a, b):
        x = x + 0.1 * math.tanh(x * i)
    return x


@gradc.export
def reads_array(x: f64, w: f64[:], n: i64) -> f64:
    for i in range(n):
        x = math.sin(x) * w[i] + x
    return x


@gradc.export
def nested(x: f64, n: i64, m: i64) -> f64:
    s = 0.0
    for i in range(n):
        for j in range(m):
            s = s + math.sin(x * i + j) * x
        s = s * 0.5
    return s


def _step(x, c):
    return x + 0.1 * math.cos(x * c)


@gradc.export
def calls_helper(x: f64, c: f64, n: i64) -> f64:
    for _ in range(n):
        x = _step(x, c)
    return x


@gradc.export
def may_raise(x: f64, n: i64) -> f64:
    for _ in range(n):
        if x > 100.0:
            raise ValueError("diverged")
        x = x * 1.1 + 0.01
    return x


@gradc.export
def clock(x: f64, n: i64) -> f64:
    # t is not active; its copy out of a segment call is (a zero adjoint)
    t = 0.0
    for _ in range(n):
        x = x + 0.1 * math.sin(x + t)
        t = t + 0.5
    return x * t


@gradc.export
def while_unknown(x: f64) -> f64:
    s = 0.0
    while x > 1.0:
        x = x * 0.5
        s = s + math.sin(x)
    return s + x


@gradc.export
def with_break(x: f64, n: i64, stop: i64) -> f64:
    for i in range(n):
        if i == stop:
            break
        x = x * 0.9 + math.sin(x)
    return x


@gradc.export
def writes_array(x: f64, a: f64[:], n: i64) -> f64:
    for i in range(n):
        a[i] = a[i] * x
        x = x + a[i]
    return x


d_recurrence = gradc.grad(recurrence, wrt=("x", "c"))
t_recurrence = gradc.jvp(recurrence, wrt=("x", "c"))
d_two_carried = gradc.grad(two_carried, wrt=("x", "y"))
t_two_carried = gradc.jvp(two_carried, wrt=("x", "y"))
d_offset_range = gradc.grad(offset_range, wrt=("x",))
t_offset_range = gradc.jvp(offset_range, wrt=("x",))
d_reads_array = gradc.grad(reads_array, wrt=("x", "w"))
t_reads_array = gradc.jvp(reads_array, wrt=("x", "w"))
d_nested = gradc.grad(nested, wrt=("x",))
t_nested = gradc.jvp(nested, wrt=("x",))
d_calls_helper = gradc.grad(calls_helper, wrt=("x", "c"))
t_calls_helper = gradc.jvp(calls_helper, wrt=("x", "c"))
d_may_raise = gradc.grad(may_raise, wrt=("x",))
t_may_raise = gradc.jvp(may_raise, wrt=("x",))
d_clock = gradc.grad(clock, wrt=("x",))
t_clock = gradc.jvp(clock, wrt=("x",))
d_while_unknown = gradc.grad(while_unknown, wrt=("x",))
t_while_unknown = gradc.jvp(while_unknown, wrt=("x",))
d_with_break = gradc.grad(with_break, wrt=("x",))
t_with_break = gradc.jvp(with_break, wrt=("x",))
d_writes_array = gradc.grad(writes_array, wrt=("x", "a"))
t_writes_array = gradc.jvp(writes_array, wrt=("x", "a"))
