"""Bitwise operators on int loop counters and int parameters steering float code: the
branch on ``i & 1`` (parity), a Gray code ``i ^ (i >> 1)`` as a weight, bits of a mask
parameter choosing terms, ``~`` and ``<<`` on counters. The ints carry no derivative;
the float computation they steer is differentiated through them.
"""

import math

import gradc
from gradc import f64, i64

DOMAINS = {
    "parity_branch": {"n": (0, 9)},
    "gray_weights": {"y": (-0.9, 0.9), "n": (0, 8)},
    "mask_terms": {"x": (-1.5, 1.5), "mask": (0, 63)},
    "shifted_scale": {"n": (0, 6)},
}


@gradc.export
def parity_branch(x: f64, n: i64) -> f64:
    s = 0.0
    for i in range(n):
        if i & 1:
            s = s * x + 1.0
        else:
            s = s + math.sin(x * i)
    return s


@gradc.export
def gray_weights(x: f64, y: f64, n: i64) -> f64:
    s = x
    for i in range(n):
        w = (i ^ (i >> 1)) & 3
        s = s * y + w * x * 0.5
        if ~i & 2:
            s -= 0.25 * x * y
    return s


@gradc.export
def mask_terms(x: f64, mask: i64) -> f64:
    t = 0.0
    p = 1.0
    for k in range(6):
        if mask >> k & 1:
            t += p
        p *= x
    return t


@gradc.export
def shifted_scale(x: f64, y: f64, n: i64) -> f64:
    s = 0.0
    for i in range(n):
        scale = (1 << i) | (i & 1)
        s += math.exp(-x * scale * 0.1) * y
    return s


d_parity_branch = gradc.grad(parity_branch, wrt=("x",))
t_parity_branch = gradc.jvp(parity_branch, wrt=("x",))
d_gray_weights = gradc.grad(gray_weights, wrt=("x", "y"))
t_gray_weights = gradc.jvp(gray_weights, wrt=("x", "y"))
d_mask_terms = gradc.grad(mask_terms, wrt=("x",))
t_mask_terms = gradc.jvp(mask_terms, wrt=("x",))
d_shifted_scale = gradc.grad(shifted_scale, wrt=("x", "y"))
t_shifted_scale = gradc.jvp(shifted_scale, wrt=("x", "y"))
