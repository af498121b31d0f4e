"""Kernels for the overlap checks of derivative exports: tests/ad/test_ad_aliasing.py.

Each is called with array arguments that share memory; the oracle is the plain Python
function called with the same aliased arguments."""

import math

import numpy as np

import gradc
from gradc import f64, i64


@gradc.export
def h(a: f64[:], b: f64[:]) -> f64:
    a[0] = a[0] * 2.0
    return b[0] * b[0]


d_h = gradc.grad(h, wrt=("a", "b"))
vg_h = gradc.value_and_grad(h, wrt=("a", "b"))
v_h = gradc.vjp(h, wrt=("a", "b"))
t_h = gradc.jvp(h, wrt=("a", "b"))
r_h = gradc.reverse(h, a=gradc.Duplicated, b=gradc.Duplicated)
fw_h = gradc.forward(h, a=gradc.Duplicated, b=gradc.Duplicated)


@gradc.export
def smooth(a: f64[:], b: f64[:], n: i64) -> f64:
    """Writes through ``a`` what later reads through ``b`` see when they overlap."""
    for i in range(n):
        a[i] = math.sin(a[i]) * b[i] + 0.5 * a[i]
    s = 0.0
    for i in range(n):
        s += b[i] * b[(i + 1) % n] + math.cos(a[i])
    return s


d_smooth = gradc.grad(smooth, wrt=("a", "b"))
r_smooth = gradc.reverse(smooth, a=gradc.Duplicated, b=gradc.Duplicated)
fw_smooth = gradc.forward(smooth, a=gradc.Duplicated, b=gradc.Duplicated)


@gradc.export
def dot(x: f64[:], c: f64[:]) -> f64:
    """Reads only: overlapping arguments get their own partial derivatives."""
    s = 0.0
    for i in range(len(x)):
        s += x[i] * c[i] * x[i]
    return s


d_dot = gradc.grad(dot, wrt="x")
d2_dot = gradc.grad(dot, wrt=("x", "c"))
t_dot = gradc.jvp(dot, wrt=("x", "c"))
r_dot = gradc.reverse(dot, x=gradc.Duplicated, c=gradc.Duplicated)
fw_dot = gradc.forward(dot, x=gradc.Duplicated)


@gradc.export
def poke(x: f64[:], c: f64[:]) -> f64:
    """Writes a Const array: through shared memory that changes the active one."""
    c[0] = 5.0
    return x[0] * x[0]


d_poke = gradc.grad(poke, wrt="x")
r_poke = gradc.reverse(poke, x=gradc.Duplicated)
t_poke = gradc.jvp(poke, wrt="x")


@gradc.export
def fill(x: f64, c1: f64[:], c2: f64[:]) -> f64:
    """A Const array made active by a store, read back through another."""
    c1[0] = x * x
    return c2[0] * x


d_fill = gradc.grad(fill, wrt="x")
r_fill = gradc.reverse(fill, x=gradc.Active)
fw_fill = gradc.forward(fill, x=gradc.Duplicated)


@gradc.export
def twice(x: f64[:], w: f64[:]) -> f64[:]:
    out = np.zeros(len(x))
    for i in range(len(x)):
        w[i] = x[i]
        out[i] = 2.0 * x[i] * x[i]
    return out


v_twice = gradc.vjp(twice, wrt="x")


@gradc.export
def h2(a: f64[:, :], b: f64[:, :]) -> f64:
    s = 0.0
    if a.shape[0] > 0 and a.shape[1] > 0:
        a[0, 0] = 1.0
    for i in range(b.shape[0]):
        for j in range(b.shape[1]):
            s += b[i, j]
    return s


d_h2 = gradc.grad(h2, wrt="b")


@gradc.export
def scale2(a: f64[:, :]) -> f64:
    """Writes every element of an active array: elements sharing memory would be wrong."""
    s = 0.0
    for i in range(a.shape[0]):
        for j in range(a.shape[1]):
            a[i, j] = a[i, j] * a[i, j]
            s += a[i, j]
    return s


d_scale2 = gradc.grad(scale2, wrt="a")
r_scale2 = gradc.reverse(scale2, a=gradc.Duplicated)
