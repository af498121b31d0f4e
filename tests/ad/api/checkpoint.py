"""Checkpointed helpers (tests/ad/test_ad_checkpoint.py): scalar and array parameters,
tuple and array results, called in loops, with branches, local arrays, an array the
caller writes between calls (copied onto the tape), a checkpointed helper calling another
one, a Hessian (forward over the recomputing reverse sweep) and a gradient called inside
an export. The test also builds this text without its ``@gradc.checkpoint`` lines and
compares."""

import math

import numpy as np

import gradc
from gradc import f64, i64


@gradc.checkpoint
def smooth(x, c):
    a = math.sin(x) * c
    b = math.exp(-a * a)
    d = math.log(1.0 + b * b)
    return x + 0.01 * (d * math.cos(a) + b)


@gradc.export
def scalar_loop(x: f64, c: f64, n: i64) -> f64:
    for _ in range(n):
        x = smooth(x, c)
    return x


@gradc.checkpoint
def weighted(a, w, t):
    s = 0.0
    for i in range(a.shape[0]):
        s += w[i] * math.tanh(a[i] * t)
    return s


@gradc.export
def array_loop(a: f64[:], w: f64[:], t: f64, n: i64) -> f64:
    s = 0.0
    for k in range(n):
        s += weighted(a, w, t + 0.1 * k) * s * 0.1 + weighted(a, w, t)
    return s


@gradc.checkpoint
def branchy(x, y):
    if x > y:
        r = x * y - math.sin(y)
    else:
        r = x * x + y
    return r * 0.5


@gradc.export
def branch_loop(x: f64, y: f64, n: i64) -> f64:
    for _ in range(n):
        x = branchy(x, y)
        y = 0.9 * y + 0.1 * math.cos(x)
    return x + y


@gradc.checkpoint
def local_array(a, t):
    tmp = np.zeros(a.shape[0])
    for i in range(a.shape[0]):
        tmp[i] = math.sin(a[i] * t)
    s = 0.0
    for i in range(a.shape[0]):
        s += tmp[i] * tmp[i]
    return s


@gradc.export
def written_loop(a: f64[:], t: f64, n: i64) -> f64:
    b = a.copy()
    s = 0.0
    for _ in range(n):
        s += local_array(b, t)
        b[0] = b[0] * 0.5 + s * 0.01
    return s


@gradc.checkpoint
def twice(x, c):
    return smooth(smooth(x, c), c) * 0.5 + x * 0.5


@gradc.export
def nested_loop(x: f64, c: f64, n: i64) -> f64:
    i = 0
    while True:
        x = twice(x, c) + 0.01 * i
        i += 1
        if i >= n:
            break
    return x


@gradc.checkpoint
def pair(x, c):
    return math.sin(x) * c, x * x + c


@gradc.export
def tuple_loop(x: f64, c: f64, n: i64) -> f64:
    s = 0.0
    for _ in range(n):
        u, v = pair(x, c)
        s += u * v
        x = 0.9 * x + 0.01 * u
    return s


@gradc.checkpoint
def scaled(a, t):
    out = np.zeros(a.shape[0])
    for i in range(a.shape[0]):
        out[i] = math.tanh(a[i] * t)
    return out


@gradc.export
def array_result(a: f64[:], t: f64) -> f64:
    s = 0.0
    for k in range(3):
        b = scaled(a, t + k)
        for i in range(b.shape[0]):
            s += b[i] * a[i]
    return s


@gradc.export
def composed(x: f64, c: f64) -> f64:
    for _ in range(5):
        x = smooth(x, c)
    return x * x


d_scalar_loop = gradc.grad(scalar_loop, wrt=("x", "c"))
t_scalar_loop = gradc.jvp(scalar_loop, wrt=("x", "c"))
d_array_loop = gradc.grad(array_loop, wrt=("a", "w", "t"))
d_branch_loop = gradc.grad(branch_loop, wrt=("x", "y"))
t_branch_loop = gradc.jvp(branch_loop, wrt=("x", "y"))
d_written_loop = gradc.grad(written_loop, wrt=("a", "t"))
d_nested_loop = gradc.grad(nested_loop, wrt=("x", "c"))
t_nested_loop = gradc.jvp(nested_loop, wrt=("x", "c"))
d_tuple_loop = gradc.grad(tuple_loop, wrt=("x", "c"))
d_array_result = gradc.grad(array_result, wrt=("a", "t"))
d_composed = gradc.grad(composed)
h_composed = gradc.hessian(composed, wrt=("x", "c"))


@gradc.export
def descend(x: f64, c: f64) -> f64:
    for _ in range(3):
        x = x - 0.1 * d_composed(x, c)
    return x
