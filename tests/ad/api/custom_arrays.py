"""Custom rules beyond f64 scalar helpers, for tests/ad/test_ad_custom_arrays.py: on
exports, and on helpers of array parameters and results; every rule differs from the
true derivative so that the derivatives show it is used."""

import numpy as np

import gradc
from gradc import f64


@gradc.custom_vjp
@gradc.export
def energy(x: f64[:], c: f64) -> f64:
    return c * float(np.sum(x * x))


def energy_fwd(x, c):
    return energy(x, c), (x, c)


def energy_bwd(res, ct):
    x, c = res
    return ct * 3.0 * c * x, ct * 5.0  # true: 2 c x, sum(x * x)


energy.defvjp(energy_fwd, energy_bwd)


@gradc.custom_jvp
@gradc.export
def cube(u: f64) -> f64:
    return u * u * u


@cube.defjvp
def cube_jvp(primals, tangents):
    (u,) = primals
    (t,) = tangents
    return cube(u), 10.0 * t  # true: 3 u² t


@gradc.custom_jvp
def squash(v, s):
    return np.tanh(v) * s


@squash.defjvp
def squash_jvp(primals, tangents):
    v, s = primals
    dv, ds = tangents
    return squash(v, s), 2.0 * dv + ds  # true: (1 - tanh²) s dv + tanh ds


@gradc.custom_vjp
def spread(v, s):
    return v * s


def spread_fwd(v, s):
    return spread(v, s), (v, s)


def spread_bwd(res, ct):
    return ct * 4.0, float(np.sum(ct)) * 0.5  # true: ct s, sum(ct v) (res = (v, s))


spread.defvjp(spread_fwd, spread_bwd)


@gradc.custom_vjp
def clip(v):
    return v * 1.0


def clip_fwd(v):
    return clip(v), 0.0


def clip_bwd(res, ct):
    return (ct[1:],)  # one element short: a ValueError in the reverse sweep


clip.defvjp(clip_fwd, clip_bwd)


@gradc.export
def uses_clip(x: f64[:]) -> f64:
    return float(np.sum(clip(x)))


@gradc.export
def uses_squash(x: f64[:], s: f64) -> f64:
    return float(np.sum(squash(x, s)))


@gradc.export
def uses_spread(x: f64[:], s: f64) -> f64[:]:
    return spread(x, s) + x


@gradc.export
def uses_energy(x: f64[:], c: f64) -> f64:
    return energy(x, c) * 2.0


d_energy = gradc.grad(energy, wrt=("x", "c"))
d_uses_energy = gradc.grad(uses_energy, wrt=("x", "c"))
t_cube = gradc.jvp(cube)
t_uses_squash = gradc.jvp(uses_squash, wrt=("x", "s"))
v_uses_spread = gradc.vjp(uses_spread, wrt=("x", "s"))
d_uses_clip = gradc.grad(uses_clip)
