"""Functions with error exits (``raise``, ``assert``, the zero-step check of a ``range``
with a run-time step) in every position the reverse CFG must cope with: straight line,
loops, nested branches, after array writes, in a helper, and a function that always
raises. Read by tests/ad/test_ad_error_exits.py through the AD corpus harness conventions
(DOMAINS, SHAPES, KINKS); the domains straddle each raise so both exits are drawn."""

import math

import numpy as np

import gradc
from gradc import f64, i64


@gradc.export
def always(x: f64) -> f64:
    raise ValueError("never returns")


@gradc.export
def asserted(x: f64, y: f64) -> f64:
    assert x > 0.0, "x must be positive"
    return x * y + math.sin(x)


@gradc.export
def step(x: f64, n: i64, k: i64) -> f64:
    s = 0.0
    for i in range(0, n, k):
        s += x * i + math.cos(x)
    return s


@gradc.export
def in_loop(x: f64, y: f64, n: i64) -> f64:
    s = 0.0
    for i in range(n):
        if x * i > 3.0:
            raise ValueError("too big")
        s += math.sin(x * i) * y
    return s


@gradc.export
def in_while(x: f64, y: f64) -> f64:
    s = y
    i = 0
    while s < 10.0:
        s = s * x + 1.0
        i += 1
        if i > 20:
            raise OverflowError("no convergence")
    return s


@gradc.export
def nested(x: f64, y: f64) -> f64:
    s = 0.0
    if x > 0.0:
        if y > 1.0:
            raise ValueError("y")
        else:
            s = x * y
    else:
        if y < -1.0:
            assert x < -1.0
            s = x - y
        else:
            s = math.exp(x) * y
    return s * s


@gradc.export
def after_writes(x: f64, a: f64[:]) -> f64:
    a[0] = a[0] * x
    b = np.zeros(3)
    b[1] = x * a[1]
    if a[0] > 2.0:
        raise ValueError("a[0]")
    return a[0] * b[1] + a[2]


def helper(x: f64, y: f64) -> f64:
    if x > 1.0:
        raise ZeroDivisionError("helper")
    return x * y * y


@gradc.export
def calls(x: f64, y: f64) -> f64:
    return helper(x, y) * 2.0 + helper(y, x)


@gradc.export
def loop_arrays(x: f64, n: i64) -> f64:
    s = 0.0
    for i in range(n):
        t = np.zeros(2)
        t[0] = x * i
        if t[0] > 5.0:
            raise ValueError("t")
        s += t[0] * t[0]
    return s


def _while_kinks(x: float, y: float) -> tuple[float, ...]:
    """The loop test of ``in_while`` at each iteration (its trip count jumps there)."""
    out = []
    s = y
    for _ in range(22):
        out.append(s - 10.0)
        if s >= 10.0:
            break
        s = s * x + 1.0
    return tuple(out)


DOMAINS = {
    "step": {"n": (-6, 7), "k": (-2, 2)},
    "in_loop": {"n": (0, 5)},
    "in_while": {"x": (0.5, 2.0), "y": (0.5, 2.0)},
    "after_writes": {"x": (-3.0, 3.0)},
    "loop_arrays": {"x": (-3.0, 3.0), "n": (0, 5)},
}
SHAPES = {"after_writes": {"a": (3,)}}
KINKS = {
    "asserted": lambda x, y: (x,),
    "in_loop": lambda x, y, n: tuple(x * i - 3.0 for i in range(n)),
    "in_while": _while_kinks,
    "nested": lambda x, y: (x, x + 1.0, y - 1.0, y + 1.0),
    "after_writes": lambda x, a: (a[0] * x - 2.0,),
    "calls": lambda x, y: (x - 1.0, y - 1.0),
    "loop_arrays": lambda x, n: tuple(x * i - 5.0 for i in range(n)),
}

d_always = gradc.grad(always, wrt=("x",))
t_always = gradc.jvp(always, wrt=("x",))
d_asserted = gradc.grad(asserted, wrt=("x", "y"))
t_asserted = gradc.jvp(asserted, wrt=("x", "y"))
d_step = gradc.grad(step, wrt=("x",))
t_step = gradc.jvp(step, wrt=("x",))
d_in_loop = gradc.grad(in_loop, wrt=("x", "y"))
t_in_loop = gradc.jvp(in_loop, wrt=("x", "y"))
d_in_while = gradc.grad(in_while, wrt=("x", "y"))
t_in_while = gradc.jvp(in_while, wrt=("x", "y"))
d_nested = gradc.grad(nested, wrt=("x", "y"))
t_nested = gradc.jvp(nested, wrt=("x", "y"))
d_after_writes = gradc.grad(after_writes, wrt=("x", "a"))
t_after_writes = gradc.jvp(after_writes, wrt=("x", "a"))
d_calls = gradc.grad(calls, wrt=("x", "y"))
t_calls = gradc.jvp(calls, wrt=("x", "y"))
d_loop_arrays = gradc.grad(loop_arrays, wrt=("x",))
t_loop_arrays = gradc.jvp(loop_arrays, wrt=("x",))
vg_nested = gradc.value_and_grad(nested, wrt=("x", "y"))
v_calls = gradc.vjp(calls, wrt=("x", "y"))
r_after_writes = gradc.reverse(after_writes, x=gradc.Active, a=gradc.Duplicated)
