"""Derivatives called from compiled code (tests/ad/test_ad_in_code.py): a Newton solver
export calling ``df`` of ten functions, a gradient-descent step calling a gradient of an
array function, and a Newton step on a gradient calling its Hessian-vector product."""

import math

import gradc
from gradc import f64, i64


@gradc.export
def f(k: i64, x: f64, c: f64) -> f64:
    if k == 0:
        return x * x * x - c
    if k == 1:
        return math.cos(x) - c * x
    if k == 2:
        return math.exp(x) - c - 2.0
    if k == 3:
        return x - c * math.tanh(x) - 0.5
    if k == 4:
        return math.log(x) + x - c
    if k == 5:
        return x**5 - c * x - 1.0
    if k == 6:
        return math.atan(x) - 0.25 * c
    if k == 7:
        return x * math.exp(x) - c
    if k == 8:
        return math.sinh(x) - c
    return math.sqrt(x) + x * x - c - 1.0


df = gradc.grad(f, wrt="x")


@gradc.export
def newton(k: i64, x0: f64, c: f64, tol: f64, maxiter: i64) -> f64:
    x = x0
    for _ in range(maxiter):
        step = f(k, x, c) / df(k, x, c)
        x -= step
        if abs(step) < tol:
            return x
    raise RuntimeError("no convergence")


# the derivative of the root through the solver's iterations (they call df)
droot = gradc.grad(newton, wrt="c")


@gradc.export
def loss(w: f64[:], t: f64[:]) -> f64:
    s = 0.0
    for i in range(w.shape[0]):
        s += math.cosh(w[i] - t[i])
    return s


dloss = gradc.grad(loss)


@gradc.export
def descend(w0: f64[:], t: f64[:], lr: f64, steps: i64) -> f64[:]:
    w = w0.copy()
    for _ in range(steps):
        g = dloss(w, t)
        for i in range(w.shape[0]):
            w[i] -= lr * g[i]
    return w


hvp = gradc.jvp(dloss, wrt="w")


@gradc.export
def newton_step(w: f64[:], t: f64[:], v: f64[:]) -> f64:
    g, hv = hvp(w, t, v)
    s = 0.0
    for i in range(w.shape[0]):
        s += g[i] * hv[i]
    return s
