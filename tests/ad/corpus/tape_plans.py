"""Shapes the reverse-mode tape planner (passes/ad/taping.py) treats specially, each with
a way to get it wrong: induction variables with a run-time start and step or a negative
step (recomputed from trip counts), values hoisted out of loops left by ``break``,
``return`` or a second exit, ``while`` loops with ``continue`` (not counted), an
induction variable read after its loop, index arithmetic recomputed in the reverse sweep
(GMM's packed triangle), loads repeated in the reverse sweep next to arrays that are
written later (a local array cleared after it was read, a helper reading a temporary
the caller overwrites afterwards), and local arrays allocated
inside a loop.

Array sizes stay <= 6 elements (every element is checked by finite differences).
"""

import math

import numpy as np

import gradc
from gradc import f64, i64

DOMAINS = {
    "strided_range": {"a": (0, 3), "k": (1, 3)},
    "break_hoisted": {"w": (0.5, 1.5), "limit": (0.5, 6.0)},
    "while_continue": {"w": (-1.5, 1.5)},
    "return_in_nested": {"A": (0.1, 1.0), "t": (0.5, 2.0)},
    "iv_after_loop": {"n": (0, 5)},
    "packed_triangle": {"d": (1, 3)},
    "helper_reads_temporary": {"c": (-1.5, 1.5)},
    "alloc_in_loop": {"m": (0, 3)},
}

SHAPES = {
    "strided_range": {"x": ("n",)},
    "countdown": {"x": ("n",)},
    "break_hoisted": {"x": ("n",)},
    "while_continue": {"x": ("n",)},
    "return_in_nested": {"A": ("m", "n")},
    "iv_after_loop": {"x": (5,)},
    "packed_triangle": {"x": (3,), "L": (3,)},
    "read_then_clear": {"x": ("n",)},
    "helper_reads_temporary": {"x": ("n",)},
    "alloc_in_loop": {"x": ("n",)},
}

DIMS = {
    "strided_range": {"n": (0, 6)},
    "countdown": {"n": (0, 6)},
    "break_hoisted": {"n": (0, 6)},
    "while_continue": {"n": (0, 6)},
    "return_in_nested": {"m": (1, 3), "n": (1, 3)},
    "read_then_clear": {"n": (1, 5)},
    "helper_reads_temporary": {"n": (1, 4)},
    "alloc_in_loop": {"n": (1, 4)},
}


def _running_sums(values, w):
    out = []
    s = 0.0
    for v in values:
        s += w * v * v
        out.append(s)
    return out


KINKS = {
    # break_hoisted leaves the loop when the running sum of w·x_i² passes `limit`
    "break_hoisted": lambda x, w, limit: tuple(s - limit for s in _running_sums(x, w)),
    # return_in_nested returns when the running sum of t·A[i, j] passes 3
    "return_in_nested": lambda A, t: tuple(
        s - 3.0 for s in _running_sums([math.sqrt(math.sqrt(a)) for a in A.ravel()], t)
    ),
    # while_continue skips elements whose x_i·w is negative
    "while_continue": lambda x, w: tuple(v * w for v in x),
}


@gradc.export
def strided_range(x: f64[:], a: i64, k: i64) -> f64:
    # i = a + k·trip: recomputed from the trip count, a and k pushed once
    s = 0.0
    for i in range(a, len(x), k):
        s = s * 0.5 + x[i] * x[i] * (i + 1)
    return s


@gradc.export
def countdown(x: f64[:]) -> f64:
    s = 1.0
    for i in range(len(x) - 1, -1, -1):
        s = s * x[i] + math.sin(x[i])
    return s


@gradc.export
def break_hoisted(x: f64[:], w: f64, limit: f64) -> f64:
    # w and x are loop-invariant; the loop has two exits (break and the header's)
    s = 0.0
    p = 1.0
    for i in range(len(x)):
        s += w * x[i] * x[i]
        if s > limit:
            break
        p = p * (1.0 + w * x[i])
    return s * p + w


@gradc.export
def while_continue(x: f64[:], w: f64) -> f64:
    # `continue` jumps to the header: two latches, no trip count
    s = 0.0
    i = 0
    while i < len(x):
        v = x[i] * w
        i += 1
        if v < 0.0:
            continue
        s += v * x[i - 1] + w
    return s


@gradc.export
def return_in_nested(A: f64[:, :], t: f64) -> f64:
    m, n = A.shape
    s = 0.0
    for i in range(m):
        for j in range(n):
            s += t * math.sqrt(A[i, j])
            if s > 3.0:
                return s * t + i
    return s * s


@gradc.export
def iv_after_loop(x: f64[:], n: i64) -> f64:
    # k is an induction variable, read after the loop too (where no trip count is live)
    s = 0.0
    k = 0
    while k < n:
        s += x[k] * x[k]
        k += 1
    return s * k + s


@gradc.export
def packed_triangle(x: f64[:], L: f64[:], d: i64) -> f64:
    # the column-major strictly-lower triangle of GMM's icf: idx recomputed backwards
    s = 0.0
    for r in range(d):
        v = x[r]
        for c in range(r):
            idx = c * (2 * d - c - 1) // 2 + (r - c - 1)
            v += L[idx] * x[c]
        s += v * v
    return s


@gradc.export
def read_then_clear(x: f64[:]) -> f64:
    y = np.zeros(len(x))
    for i in range(len(x)):
        y[i] = x[i] * x[i]
    s = 0.0
    for i in range(len(x)):
        s += math.sin(y[i]) * y[i]
    for i in range(len(x)):
        y[i] = 0.0
    return s + y[0]


def _sum_squares(t, n):
    s = 0.0
    for j in range(n):
        s += t[j] * t[j]
    return s


@gradc.export
def helper_reads_temporary(x: f64[:], c: f64) -> f64:
    # the helper reads tmp, which the next iteration overwrites: its reverse sweep
    # must not load tmp again
    n = len(x)
    tmp = np.zeros(n)
    s = 0.0
    for i in range(n):
        for j in range(n):
            tmp[j] = x[j] * (c + i)
        s += _sum_squares(tmp, n)
    return s + _sum_squares(x, n)


@gradc.export
def alloc_in_loop(x: f64[:], m: i64) -> f64:
    s = 0.0
    for i in range(m):
        t = np.zeros(len(x))
        for j in range(len(x)):
            t[j] = x[j] * (i + 1.0)
        for j in range(len(x)):
            s += t[j] * t[len(x) - 1 - j]
    return s


d_strided_range = gradc.grad(strided_range, wrt=("x",))
t_strided_range = gradc.jvp(strided_range, wrt=("x",))
d_countdown = gradc.grad(countdown, wrt=("x",))
t_countdown = gradc.jvp(countdown, wrt=("x",))
d_break_hoisted = gradc.grad(break_hoisted, wrt=("x", "w", "limit"))
t_break_hoisted = gradc.jvp(break_hoisted, wrt=("x", "w", "limit"))
d_while_continue = gradc.grad(while_continue, wrt=("x", "w"))
t_while_continue = gradc.jvp(while_continue, wrt=("x", "w"))
d_return_in_nested = gradc.grad(return_in_nested, wrt=("A", "t"))
t_return_in_nested = gradc.jvp(return_in_nested, wrt=("A", "t"))
d_iv_after_loop = gradc.grad(iv_after_loop, wrt=("x",))
t_iv_after_loop = gradc.jvp(iv_after_loop, wrt=("x",))
d_packed_triangle = gradc.grad(packed_triangle, wrt=("x", "L"))
t_packed_triangle = gradc.jvp(packed_triangle, wrt=("x", "L"))
d_read_then_clear = gradc.grad(read_then_clear, wrt=("x",))
t_read_then_clear = gradc.jvp(read_then_clear, wrt=("x",))
d_helper_reads_temporary = gradc.grad(helper_reads_temporary, wrt=("x", "c"))
t_helper_reads_temporary = gradc.jvp(helper_reads_temporary, wrt=("x", "c"))
d_alloc_in_loop = gradc.grad(alloc_in_loop, wrt=("x",))
t_alloc_in_loop = gradc.jvp(alloc_in_loop, wrt=("x",))
