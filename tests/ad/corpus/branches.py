"""Branches on data and the piecewise builtins: if/elif/else on float comparisons,
conditional expressions, clamping, ``min``/``max``/``abs`` of two and three values, a
branch that picks which formula feeds a later computation, and a branch on an int.

KINKS keeps every drawn input away from the switching points (the derivative jumps
there, so neither finite differences nor AD have a single right answer).
"""

import math

import gradc
from gradc import f64, i64

DOMAINS = {
    "piecewise3": {"x": (-3.0, 3.0)},
    "clamp": {"x": (-3.0, 3.0), "lo": (-1.5, -0.5), "hi": (0.5, 1.5)},
    "abs_sum": {"x": (-2.0, 2.0), "y": (-2.0, 2.0)},
    "min3": {"x": (-2.0, 2.0), "y": (-2.0, 2.0), "z": (-2.0, 2.0)},
    "huber": {"x": (-3.0, 3.0), "delta": (0.5, 1.5)},
    "relu_mix": {"x": (-2.0, 2.0), "w": (-2.0, 2.0)},
    "branch_on_int": {"k": (0, 3)},
    "smooth_max_branch": {"x": (-3.0, 3.0), "y": (-3.0, 3.0)},
    "sorted_diff": {"x": (-2.0, 2.0), "y": (-2.0, 2.0)},
    "sqrt_abs": {"x": (-4.0, 4.0)},
}

KINKS = {
    "piecewise3": lambda x: (x + 1.0, x - 1.0),
    "clamp": lambda x, lo, hi: (x - lo, x - hi),
    "abs_sum": lambda x, y: (x, y - 0.5),
    "min_max": lambda x, y: (x - y,),
    "min3": lambda x, y, z: (x - y, y - z, x - z),
    "huber": lambda x, delta: (abs(x) - delta,),
    "relu_mix": lambda x, w: (x * w,),
    "cond_expr": lambda x, y: (x * y - 0.25,),
    "smooth_max_branch": lambda x, y: (x - y,),
    "sorted_diff": lambda x, y: (x - y,),
    "sqrt_abs": lambda x: (abs(x) - 0.1,),
    "nested_if": lambda x, y: (x, y, x + y - 1.0),
}


@gradc.export
def piecewise3(x: f64) -> f64:
    if x < -1.0:
        return -x * x
    elif x < 1.0:
        return 2.0 * x + 1.0 - x * x * x
    else:
        return math.exp(x - 1.0) + 1.0


@gradc.export
def clamp(x: f64, lo: f64, hi: f64) -> f64:
    if x < lo:
        y = lo
    elif x > hi:
        y = hi
    else:
        y = x
    return y * y + x


@gradc.export
def abs_sum(x: f64, y: f64) -> f64:
    return abs(x) * 2.0 + abs(y - 0.5) * x


@gradc.export
def min_max(x: f64, y: f64) -> f64:
    return min(x, y) * 3.0 + max(x, y) * max(x, y)


@gradc.export
def min3(x: f64, y: f64, z: f64) -> f64:
    return min(x, y, z) * max(y, z) + x


@gradc.export
def huber(x: f64, delta: f64) -> f64:
    a = abs(x)
    if a <= delta:
        return 0.5 * x * x
    return delta * (a - 0.5 * delta)


@gradc.export
def relu_mix(x: f64, w: f64) -> f64:
    h = max(x * w, 0.0)
    return h * h + h + w


@gradc.export
def cond_expr(x: f64, y: f64) -> f64:
    z = x * y
    r = math.sin(z) if z > 0.25 else z * z * 0.5
    return r + x


@gradc.export
def branch_on_int(x: f64, k: i64) -> f64:
    if k == 0:
        return x
    if k == 1:
        return x * x
    if k % 2 == 0:
        return math.sin(x) * k
    return math.cos(x) + x


@gradc.export
def smooth_max_branch(x: f64, y: f64) -> f64:
    # log(exp(x) + exp(y)) with the larger value factored out: smooth overall, branchy inside
    if x > y:
        return x + math.log1p(math.exp(y - x))
    return y + math.log1p(math.exp(x - y))


@gradc.export
def sorted_diff(x: f64, y: f64) -> f64:
    lo = x
    hi = y
    if lo > hi:
        t = lo
        lo = hi
        hi = t
    return (hi - lo) * hi + lo


@gradc.export
def sqrt_abs(x: f64) -> f64:
    a = abs(x)
    if a > 0.1:
        return math.sqrt(a)
    return 0.0


@gradc.export
def nested_if(x: f64, y: f64) -> f64:
    r = 0.0
    if x > 0.0:
        if y > 0.0:
            r = x * y
        else:
            r = x - y
    else:
        if x + y > 1.0:
            r = x * x
        else:
            r = -y * y * x
    return r * 2.0 + 1.0


d_piecewise3 = gradc.grad(piecewise3, wrt=("x",))
t_piecewise3 = gradc.jvp(piecewise3, wrt=("x",))
d_clamp = gradc.grad(clamp, wrt=("x", "lo", "hi"))
t_clamp = gradc.jvp(clamp, wrt=("x", "lo", "hi"))
d_abs_sum = gradc.grad(abs_sum, wrt=("x", "y"))
t_abs_sum = gradc.jvp(abs_sum, wrt=("x", "y"))
d_min_max = gradc.grad(min_max, wrt=("x", "y"))
t_min_max = gradc.jvp(min_max, wrt=("x", "y"))
d_min3 = gradc.grad(min3, wrt=("x", "y", "z"))
t_min3 = gradc.jvp(min3, wrt=("x", "y", "z"))
d_huber = gradc.grad(huber, wrt=("x", "delta"))
t_huber = gradc.jvp(huber, wrt=("x", "delta"))
d_relu_mix = gradc.grad(relu_mix, wrt=("x", "w"))
t_relu_mix = gradc.jvp(relu_mix, wrt=("x", "w"))
d_cond_expr = gradc.grad(cond_expr, wrt=("x", "y"))
t_cond_expr = gradc.jvp(cond_expr, wrt=("x", "y"))
d_branch_on_int = gradc.grad(branch_on_int, wrt=("x",))
t_branch_on_int = gradc.jvp(branch_on_int, wrt=("x",))
d_smooth_max_branch = gradc.grad(smooth_max_branch, wrt=("x", "y"))
t_smooth_max_branch = gradc.jvp(smooth_max_branch, wrt=("x", "y"))
d_sorted_diff = gradc.grad(sorted_diff, wrt=("x", "y"))
t_sorted_diff = gradc.jvp(sorted_diff, wrt=("x", "y"))
d_sqrt_abs = gradc.grad(sqrt_abs, wrt=("x",))
t_sqrt_abs = gradc.jvp(sqrt_abs, wrt=("x",))
d_nested_if = gradc.grad(nested_if, wrt=("x", "y"))
t_nested_if = gradc.jvp(nested_if, wrt=("x", "y"))
