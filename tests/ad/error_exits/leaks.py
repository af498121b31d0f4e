"""Error exits inside loops that allocate arrays (issue #18): explicit ``raise`` and
``assert``, in the differentiated function and in helpers, and an implicit raising
operation, with local arrays (whose shadows the forward sweep pushes on the tape) and
arrays returned by helpers. Most signatures are scalars only: their derivative wrappers
hold no array, only the tape (the case ``lifetimes`` once skipped). Read by
tests/ad/test_ad_error_exit_leaks.py, which counts the runtime's live blocks around raising
calls of every flavour."""

import math

import numpy as np

import gradc
from gradc import f64, i64


def _make(v: f64, k: i64) -> f64[:]:
    out = np.empty(k)
    for j in range(k):
        out[j] = v * (j + 1.0)
    if out[0] > 5.0:
        raise ValueError("helper: too big")
    return out


def _check(t: f64[:], v: f64) -> None:
    assert v < 11.0, "helper: v"
    t[1] = v * v


@gradc.export
def raise_loop(x: f64, n: i64) -> f64:
    s = 0.0
    for i in range(n):
        t = np.zeros(3)
        u = np.ones(3)
        t[0] = x * i
        u[1] = math.sin(t[0])
        if t[0] > 5.0:
            raise ValueError("t")
        s += t[0] * u[1]
    return s


@gradc.export
def assert_loop(x: f64, n: i64) -> f64:
    s = 0.0
    for i in range(n):
        t = np.zeros(2)
        t[0] = x * i
        assert t[0] < 5.0, "t"
        s += t[0] * t[0]
    return s


@gradc.export
def helper_loop(x: f64, n: i64) -> f64:
    s = 0.0
    for i in range(n):
        a = _make(x * i, 3)
        t = np.zeros(3)
        _check(t, a[2])
        s += a[0] * a[2] + t[1]
    return s


@gradc.export
def implicit_loop(x: f64, n: i64) -> f64:
    s = 0.0
    for i in range(n):
        t = np.zeros(2)
        t[0] = 5.0 - x * i
        s += math.sqrt(t[0]) * t[0]
    return s


@gradc.export
def array_loop(x: f64, w: f64[:], n: i64) -> f64:
    s = 0.0
    for i in range(n):
        t = np.zeros(2)
        t[0] = x * w[i] * i
        a = _make(t[0], 2)
        assert a[1] > -5.0, "a"
        s += a[0] * t[0]
    return s


@gradc.export
def scalar_loop(x: f64, n: i64) -> f64:
    s = x
    for _ in range(n):
        s = math.sin(s) * 0.5 + x  # the tape holds every iteration's s
    if s > -1e300:
        raise ValueError("after the loop")
    return s


d_raise_loop = gradc.grad(raise_loop, wrt="x")
vg_raise_loop = gradc.value_and_grad(raise_loop, wrt="x")
v_raise_loop = gradc.vjp(raise_loop, wrt="x")
t_raise_loop = gradc.jvp(raise_loop, wrt="x")
r_raise_loop = gradc.reverse(raise_loop, x=gradc.Active)

d_assert_loop = gradc.grad(assert_loop, wrt="x")
vg_assert_loop = gradc.value_and_grad(assert_loop, wrt="x")
v_assert_loop = gradc.vjp(assert_loop, wrt="x")
t_assert_loop = gradc.jvp(assert_loop, wrt="x")
r_assert_loop = gradc.reverse(assert_loop, x=gradc.Active)

d_helper_loop = gradc.grad(helper_loop, wrt="x")
vg_helper_loop = gradc.value_and_grad(helper_loop, wrt="x")
v_helper_loop = gradc.vjp(helper_loop, wrt="x")
t_helper_loop = gradc.jvp(helper_loop, wrt="x")
r_helper_loop = gradc.reverse(helper_loop, x=gradc.Active)

d_implicit_loop = gradc.grad(implicit_loop, wrt="x")
vg_implicit_loop = gradc.value_and_grad(implicit_loop, wrt="x")
v_implicit_loop = gradc.vjp(implicit_loop, wrt="x")
t_implicit_loop = gradc.jvp(implicit_loop, wrt="x")
r_implicit_loop = gradc.reverse(implicit_loop, x=gradc.Active)

d_array_loop = gradc.grad(array_loop, wrt="x")
vg_array_loop = gradc.value_and_grad(array_loop, wrt="x")
v_array_loop = gradc.vjp(array_loop, wrt="x")
t_array_loop = gradc.jvp(array_loop, wrt="x")
r_array_loop = gradc.reverse(array_loop, x=gradc.Active, w=gradc.Duplicated)

d_scalar_loop = gradc.grad(scalar_loop, wrt="x")
