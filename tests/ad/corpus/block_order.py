"""Control flow whose block layout differs from its dominance order (issue #18, class 5):
a branch that returns while the value returned later is computed in a block laid out
after the return, a ``for ... else`` whose loop runs zero times, ``while ... else`` with
``break``, ``elif`` chains with early returns, ``continue`` and ``break`` in nested loops.
Forward mode visited blocks in layout order and gave those values a zero tangent.
"""

import math

import gradc
from gradc import f64, i64

DOMAINS = {
    "early_return_other_branch": {"y": (-2.0, 2.0)},
    "while_else": {"x": (0.2, 2.0), "n": (0, 5)},
    "elif_later_value": {"k": (0, 3)},
    "continue_break": {"n": (0, 6)},
    "return_in_loop": {"n": (0, 6)},
}

SHAPES = {"for_else_zero_trip": {"b1": (3,)}, "nested_for_else": {"a": ("n",)}}
DIMS = {"nested_for_else": {"n": (0, 4)}}

KINKS = {
    "while_else": lambda x, n: tuple(x * i - 3.0 for i in range(n + 1)),
    "continue_break": lambda x, n: tuple(x * i - 2.5 for i in range(n + 1)),
    "return_in_loop": lambda x, y, n: tuple(x + y * i - 4.0 for i in range(n + 1)),
    "nested_for_else": lambda x, a: tuple(q - x for q in a),
}


@gradc.export
def early_return_other_branch(y: f64, c: bool) -> f64:
    if c:
        return 0.0
    else:
        y = y * 3.0
    return y


@gradc.export
def for_else_zero_trip(x0: f64, b1: f64[:]) -> f64:
    for i3 in range(1, 1, 1):
        pass
    else:
        for x7 in b1:
            x0 += 1
    return x0


@gradc.export
def while_else(x: f64, n: i64) -> f64:
    i = 0
    y = x
    while i < n:
        if x * i > 3.0:
            break
        i += 1
    else:
        y = x * x
    return y * 2.0 + x


@gradc.export
def elif_later_value(x: f64, k: i64) -> f64:
    if k == 0:
        return x
    elif k == 1:
        y = math.sin(x)
    else:
        y = x * x
    if k > 5:
        return 0.0
    return y * 3.0


@gradc.export
def continue_break(x: f64, n: i64) -> f64:
    s = 0.0
    t = x
    for i in range(n):
        if i % 2 == 1:
            t = t * 0.5 + x
            continue
        if x * i > 2.5:
            s = s + t * t
            break
        s = s + math.cos(t)
    return s + t


@gradc.export
def return_in_loop(x: f64, y: f64, n: i64) -> f64:
    acc = y
    for i in range(n):
        if x + y * i > 4.0:
            return acc * x
        acc = acc + x * y
    return acc - x


@gradc.export
def nested_for_else(x: f64, a: f64[:]) -> f64:
    found = 0.0
    for q in a:
        if q > x:
            found = q * x
            break
    else:
        found = x * x * x
    return found + x


d_early_return_other_branch = gradc.grad(early_return_other_branch, wrt=("y",))
t_early_return_other_branch = gradc.jvp(early_return_other_branch, wrt=("y",))
d_for_else_zero_trip = gradc.grad(for_else_zero_trip, wrt=("x0", "b1"))
t_for_else_zero_trip = gradc.jvp(for_else_zero_trip, wrt=("x0", "b1"))
d_while_else = gradc.grad(while_else, wrt=("x",))
t_while_else = gradc.jvp(while_else, wrt=("x",))
d_elif_later_value = gradc.grad(elif_later_value, wrt=("x",))
t_elif_later_value = gradc.jvp(elif_later_value, wrt=("x",))
d_continue_break = gradc.grad(continue_break, wrt=("x",))
t_continue_break = gradc.jvp(continue_break, wrt=("x",))
d_return_in_loop = gradc.grad(return_in_loop, wrt=("x", "y"))
t_return_in_loop = gradc.jvp(return_in_loop, wrt=("x", "y"))
d_nested_for_else = gradc.grad(nested_for_else, wrt=("x", "a"))
t_nested_for_else = gradc.jvp(nested_for_else, wrt=("x", "a"))
