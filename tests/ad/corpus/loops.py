"""Loops with run-time trip counts: ``for`` over ``range(n)`` / ``range(a, b)``, ``while``
with a data-dependent exit, ``break`` and ``continue`` (on ints and on float data),
nested and triangular loops, loop-carried products, a value computed before a loop and
used after it, a Newton iteration, Horner's rule and a fixed number of Euler steps.

Trip counts that depend on float data (the ``while`` loops) change only at isolated
points; KINKS keeps inputs away from them.
"""

import math

import gradc
from gradc import f64, i64

DOMAINS = {
    "sum_powers": {"n": (0, 6)},
    "product_loop": {"x": (0.5, 1.5), "n": (0, 6)},
    "range_ab": {"a": (-2, 2), "b": (0, 5)},
    "geometric": {"r": (-0.9, 0.9), "n": (0, 8)},
    "horner": {"n": (0, 6)},
    "break_on_int": {"n": (0, 8), "stop": (0, 8)},
    "break_on_data": {"x": (0.3, 1.2), "limit": (2.0, 20.0)},
    "continue_on_int": {"n": (0, 8)},
    "continue_on_data": {"x": (0.2, 2.0), "n": (0, 8)},
    "nested_loops": {"n": (0, 4), "m": (0, 4)},
    "triangular": {"n": (0, 5)},
    "while_halving": {"x": (0.3, 20.0)},
    "newton_sqrt": {"a": (0.5, 50.0)},
    "euler_steps": {"k": (-1.5, 1.5), "n": (0, 10)},
    "before_after": {"n": (0, 5)},
    "loop_then_branch": {"n": (0, 6)},
    "while_count_up": {"x": (0.1, 3.0), "n": (0, 8)},
    "countdown_step": {"n": (0, 9)},
}


def _log2_frac(x):
    t = math.log2(x)
    return t - round(t)


KINKS = {
    # break_on_data: the running sum s_k = sum_{i<k} x^(i+1) crosses `limit`
    "break_on_data": lambda x, limit: tuple(
        sum(x ** (i + 1) for i in range(k)) - limit for k in range(1, 60)
    ),
    "continue_on_data": lambda x, n: tuple(x * i - 1.0 for i in range(n)),
    # while_halving halves until x <= 1: the trip count changes at powers of two
    "while_halving": lambda x: (_log2_frac(x),),
    "loop_then_branch": lambda x, n: (x * n - 1.0,),
}


@gradc.export
def sum_powers(x: f64, n: i64) -> f64:
    s = 0.0
    p = 1.0
    for i in range(n):
        p = p * x
        s += p / (i + 1)
    return s


@gradc.export
def product_loop(x: f64, y: f64, n: i64) -> f64:
    p = 1.0
    for i in range(n):
        p *= x + y * i * 0.1
    return p


@gradc.export
def range_ab(x: f64, a: i64, b: i64) -> f64:
    s = x
    for i in range(a, b):
        s = s * 0.5 + math.sin(x * i)
    return s


@gradc.export
def geometric(r: f64, n: i64) -> f64:
    s = 0.0
    t = 1.0
    for _ in range(n):
        s += t
        t *= r
    return s


@gradc.export
def horner(x: f64, c: f64, n: i64) -> f64:
    # coefficients c, c + 1, ... c + n - 1
    acc = 0.0
    for i in range(n):
        acc = acc * x + (c + i)
    return acc


@gradc.export
def break_on_int(x: f64, n: i64, stop: i64) -> f64:
    s = 0.0
    for i in range(n):
        if i == stop:
            break
        s += x * x * (i + 1)
    return s + x


@gradc.export
def break_on_data(x: f64, limit: f64) -> f64:
    s = 0.0
    p = 1.0
    for _ in range(60):
        p *= x
        s += p
        if s > limit:
            break
    return s * x


@gradc.export
def continue_on_int(x: f64, n: i64) -> f64:
    s = 0.0
    for i in range(n):
        if i % 2 == 1:
            continue
        s += math.cos(x * i) + x
    return s


@gradc.export
def continue_on_data(x: f64, n: i64) -> f64:
    s = 0.0
    for i in range(n):
        t = x * i
        if t < 1.0:
            continue
        s += math.log(t)
    return s + x


@gradc.export
def nested_loops(x: f64, y: f64, n: i64, m: i64) -> f64:
    s = 0.0
    for i in range(n):
        for j in range(m):
            s += x * i - y * j + x * y
    return s


@gradc.export
def triangular(x: f64, n: i64) -> f64:
    s = 0.0
    for i in range(n):
        for j in range(i, n):
            s += x ** (j - i + 1) / (j + 1)
    return s


@gradc.export
def while_halving(x: f64) -> f64:
    a = x
    k = 0
    while a > 1.0:
        a = a * 0.5
        k += 1
    return a * a + k


@gradc.export
def newton_sqrt(a: f64) -> f64:
    # the iteration count depends on a through the tolerance test; the result is smooth
    x = a
    i = 0
    while abs(x * x - a) > 1e-12 * a and i < 100:
        x = 0.5 * (x + a / x)
        i += 1
    return x


@gradc.export
def euler_steps(y0: f64, k: f64, n: i64) -> f64:
    # y' = -k y + sin(y), n explicit Euler steps of size 0.1
    y = y0
    for _ in range(n):
        y = y + 0.1 * (-k * y + math.sin(y))
    return y


@gradc.export
def before_after(x: f64, b: f64, n: i64) -> f64:
    a = x * x
    acc = 5.0
    for _ in range(n):
        acc += b
    return a * acc


@gradc.export
def loop_then_branch(x: f64, n: i64) -> f64:
    s = 0.0
    for i in range(n):
        s += x
    if s > 1.0:
        return s * s
    return -s


@gradc.export
def while_count_up(x: f64, n: i64) -> f64:
    i = 0
    acc = x
    while i < n:
        acc = acc * 0.9 + x * math.exp(-acc * acc)
        i += 1
    return acc


@gradc.export
def countdown_step(x: f64, n: i64) -> f64:
    s = 0.0
    for i in range(n, 0, -2):
        s = s * x + i
    return s


d_sum_powers = gradc.grad(sum_powers, wrt=("x",))
t_sum_powers = gradc.jvp(sum_powers, wrt=("x",))
d_product_loop = gradc.grad(product_loop, wrt=("x", "y"))
t_product_loop = gradc.jvp(product_loop, wrt=("x", "y"))
d_range_ab = gradc.grad(range_ab, wrt=("x",))
t_range_ab = gradc.jvp(range_ab, wrt=("x",))
d_geometric = gradc.grad(geometric, wrt=("r",))
t_geometric = gradc.jvp(geometric, wrt=("r",))
d_horner = gradc.grad(horner, wrt=("x", "c"))
t_horner = gradc.jvp(horner, wrt=("x", "c"))
d_break_on_int = gradc.grad(break_on_int, wrt=("x",))
t_break_on_int = gradc.jvp(break_on_int, wrt=("x",))
d_break_on_data = gradc.grad(break_on_data, wrt=("x", "limit"))
t_break_on_data = gradc.jvp(break_on_data, wrt=("x", "limit"))
d_continue_on_int = gradc.grad(continue_on_int, wrt=("x",))
t_continue_on_int = gradc.jvp(continue_on_int, wrt=("x",))
d_continue_on_data = gradc.grad(continue_on_data, wrt=("x",))
t_continue_on_data = gradc.jvp(continue_on_data, wrt=("x",))
d_nested_loops = gradc.grad(nested_loops, wrt=("x", "y"))
t_nested_loops = gradc.jvp(nested_loops, wrt=("x", "y"))
d_triangular = gradc.grad(triangular, wrt=("x",))
t_triangular = gradc.jvp(triangular, wrt=("x",))
d_while_halving = gradc.grad(while_halving, wrt=("x",))
t_while_halving = gradc.jvp(while_halving, wrt=("x",))
d_newton_sqrt = gradc.grad(newton_sqrt, wrt=("a",))
t_newton_sqrt = gradc.jvp(newton_sqrt, wrt=("a",))
d_euler_steps = gradc.grad(euler_steps, wrt=("y0", "k"))
t_euler_steps = gradc.jvp(euler_steps, wrt=("y0", "k"))
d_before_after = gradc.grad(before_after, wrt=("x", "b"))
t_before_after = gradc.jvp(before_after, wrt=("x", "b"))
d_loop_then_branch = gradc.grad(loop_then_branch, wrt=("x",))
t_loop_then_branch = gradc.jvp(loop_then_branch, wrt=("x",))
d_while_count_up = gradc.grad(while_count_up, wrt=("x",))
t_while_count_up = gradc.jvp(while_count_up, wrt=("x",))
d_countdown_step = gradc.grad(countdown_step, wrt=("x",))
t_countdown_step = gradc.jvp(countdown_step, wrt=("x",))
