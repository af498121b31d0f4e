"""The functions of tests/ad/test_ad_named.py (hand-checked gradients from the AD issue),
also run through the whole corpus harness.
"""

import math

import numpy as np

import gradc
from gradc import f64, i64

DOMAINS = {
    "product_loop": {"x": (0.5, 2.0), "n": (0, 3)},
    "weighted_mean": {"w": (0.5, 2.0)},
    "before_after_loop": {"n": (0, 4)},
    "halve_until_small": {"x": (-4.0, 4.0)},
}

SHAPES = {
    "product_loop": {"x": (3,)},
    "weighted_mean": {"x": ("n",), "w": ("n",)},
    "running_max_logsumexp": {"a": ("n",)},
    "upper_triangle_sum": {"A": ("n", "n")},
    "overwrite_in_loop": {"x": ("n",)},
}

DIMS = {
    "weighted_mean": {"n": (1, 3)},
    "running_max_logsumexp": {"n": (1, 6)},
    "upper_triangle_sum": {"n": (1, 2)},
    "overwrite_in_loop": {"n": (1, 6)},
}


def _halvings(x):
    # distance of log2(|x| / 0.1) to the nearest integer: the trip count jumps there
    if x == 0.0:
        return 0.5
    t = math.log2(abs(x) / 0.1)
    return t - round(t)


KINKS = {"halve_until_small": lambda x: (_halvings(x),)}


@gradc.export
def product_loop(x: f64[:], n: i64) -> f64:
    p = 1.0
    for i in range(n):
        p *= x[i]
    return p


@gradc.export
def weighted_mean(x: f64[:], w: f64[:]) -> f64:
    s = 0.0
    z = 0.0
    for i in range(len(x)):
        s += x[i] * w[i]
        z += w[i]
    return s / z


@gradc.export
def before_after_loop(x: f64, b: f64, n: i64) -> f64:
    a = x * x
    acc = 5  # an int that becomes a float in the loop, as in the issue
    for i in range(n):
        acc += b
    return a * acc


@gradc.export
def running_max_logsumexp(a: f64[:]) -> f64:
    m = a[0]
    for i in range(1, len(a)):
        m = max(m, a[i])
    s = 0.0
    for i in range(len(a)):
        s += math.exp(a[i] - m)
    return m + math.log(s)


@gradc.export
def upper_triangle_sum(A: f64[:, :]) -> f64:
    n = A.shape[0]
    s = 0.0
    for i in range(n):
        for j in range(i, n):
            s += A[i, j]
    return s


@gradc.export
def halve_until_small(x: f64) -> f64:
    a = x
    while abs(a) > 0.1:
        a = a * 0.5
    return a


@gradc.export
def overwrite_in_loop(x: f64[:]) -> f64:
    n = len(x)
    b = np.zeros(n)
    for i in range(n):
        b[i] = x[i]
    for k in range(2):
        for i in range(n):
            t = b[i]
            b[i] = t * x[i]
    s = 0.0
    for i in range(n):
        s += b[i]
    return s


d_product_loop = gradc.grad(product_loop, wrt=("x",))
t_product_loop = gradc.jvp(product_loop, wrt=("x",))
d_weighted_mean = gradc.grad(weighted_mean, wrt=("x", "w"))
t_weighted_mean = gradc.jvp(weighted_mean, wrt=("x", "w"))
d_before_after_loop = gradc.grad(before_after_loop, wrt=("x", "b"))
t_before_after_loop = gradc.jvp(before_after_loop, wrt=("x", "b"))
d_running_max_logsumexp = gradc.grad(running_max_logsumexp, wrt=("a",))
t_running_max_logsumexp = gradc.jvp(running_max_logsumexp, wrt=("a",))
d_upper_triangle_sum = gradc.grad(upper_triangle_sum, wrt=("A",))
t_upper_triangle_sum = gradc.jvp(upper_triangle_sum, wrt=("A",))
d_halve_until_small = gradc.grad(halve_until_small, wrt=("x",))
t_halve_until_small = gradc.jvp(halve_until_small, wrt=("x",))
d_overwrite_in_loop = gradc.grad(overwrite_in_loop, wrt=("x",))
t_overwrite_in_loop = gradc.jvp(overwrite_in_loop, wrt=("x",))
