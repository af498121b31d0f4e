"""Forward mode with a vector width, for tests/ad/test_ad_width.py: a scalar loop
function, an array function, a helper call, a tuple result, a gradient (forward over
reverse), a ``custom_jvp`` helper (``gradc.jvp(..., width=k)``, ``gradc.jacfwd(...,
width=k)``)."""

import math

import numpy as np

import gradc
from gradc import f64, i64


def step(s: f64, c: f64) -> f64:
    return s + 0.01 * math.sin(c * s) * math.exp(-s * s)


@gradc.export
def loop(x: f64, c: f64, n: i64) -> f64:
    s = x
    for _ in range(n):
        s = step(s, c)
    return s * c


@gradc.export
def field(x: f64[:], a: f64[:, :], c: f64) -> f64[:]:
    y = np.tanh(a @ x) * c
    return y + np.cumsum(np.sin(x))[: y.shape[0]]


@gradc.export
def pair(x: f64[:], c: f64) -> tuple[f64, f64[:]]:
    s = 0.0
    for i in range(x.shape[0]):
        s += x[i] * x[i] * c
    return s, np.exp(x * c)


@gradc.custom_jvp
def soft(x):
    return math.log(1.0 + math.exp(x))


@soft.defjvp
def soft_jvp(primals, tangents):
    (x,) = primals
    (t,) = tangents
    return soft(x), 7.0 * t  # the true derivative is the logistic function


@gradc.export
def uses_soft(x: f64) -> f64:
    return soft(x) * x


t_loop = gradc.jvp(loop, wrt=("x", "c"))
t8_loop = gradc.jvp(loop, wrt=("x", "c"), width=8)
t_field = gradc.jvp(field, wrt=("x", "a", "c"))
t8_field = gradc.jvp(field, wrt=("x", "a", "c"), width=8)
t_pair = gradc.jvp(pair, wrt=("x", "c"))
t3_pair = gradc.jvp(pair, wrt=("x", "c"), width=3)
jf_field = gradc.jacfwd(field, wrt=("x", "a", "c"))
jf4_field = gradc.jacfwd(field, wrt=("x", "a", "c"), width=4)
jf3_pair = gradc.jacfwd(pair, wrt=("x", "c"), width=3)
jf_pair = gradc.jacfwd(pair, wrt=("x", "c"))
g_pair = gradc.grad(loop, wrt=("x", "c"))
hvp = gradc.jvp(g_pair, wrt=("x", "c"))
hvp4 = gradc.jvp(g_pair, wrt=("x", "c"), width=4)
t_soft = gradc.jvp(uses_soft)
t3_soft = gradc.jvp(uses_soft, width=3)
