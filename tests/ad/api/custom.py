"""Custom rules (tests/ad/test_ad_custom.py): a ``custom_vjp`` and a ``custom_jvp``
helper whose rules differ from the true derivatives, used before they are defined."""

import math

import gradc
from gradc import f64


@gradc.export
def uses_vjp(x: f64, y: f64) -> f64:
    return clipped(x * y) + x


@gradc.export
def uses_jvp(x: f64) -> f64:
    return soft(x) * 2.0


@gradc.export
def uses_neither(x: f64) -> f64:
    return x * x * x


@gradc.custom_vjp
def clipped(u):
    return u * u


def clipped_fwd(u):
    return clipped(u), u


def clipped_bwd(u, ct):
    return (ct * 100.0 * u,)  # the true derivative is 2 u


clipped.defvjp(clipped_fwd, clipped_bwd)


@gradc.custom_jvp
def soft(x):
    return math.log(1.0 + math.exp(x))


@soft.defjvp
def soft_jvp(primals, tangents):
    (x,) = primals
    (t,) = tangents
    return soft(x), 7.0 * t  # the true derivative is the logistic function


d_uses_vjp = gradc.grad(uses_vjp, wrt=("x", "y"))
t_uses_jvp = gradc.jvp(uses_jvp)
d_uses_neither = gradc.grad(uses_neither)
