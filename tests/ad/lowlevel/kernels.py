"""Kernels for the low-level (Enzyme-style) derivative tests: tests/ad/test_ad_lowlevel.py."""

import math

import gradc
from gradc import f64, i64


@gradc.export
def energy(x: f64[:], c: f64, n: i64) -> f64:
    s = 0.0
    for i in range(n):
        s += c * x[i] * x[i] + math.sin(x[i])
    return s


@gradc.export
def scale_into(x: f64[:], out: f64[:], c: f64) -> f64:
    for i in range(len(x)):
        out[i] = x[i] * c
    s = 0.0
    for i in range(len(x)):
        s += out[i] * out[i]
    return s


@gradc.export
def bilinear(a: f64[:, :], u: f64[:], v: f64[:]) -> f64:
    s = 0.0
    for i in range(a.shape[0]):
        for j in range(a.shape[1]):
            s += u[i] * a[i, j] * v[j]
    return s


@gradc.export
def overwrite(x: f64[:], c: f64) -> f64:
    s = 0.0
    for i in range(len(x)):
        s += x[i] * x[i]
        x[i] = c * x[i]
    for i in range(len(x)):
        s += x[i]
    return s


@gradc.export
def pick(a: f64[:], b: f64[:], c: f64) -> f64:
    src = a if c > 0.0 else b
    s = 0.0
    for i in range(len(a)):
        s += src[i] * a[i] * c
        src[i] = s
    return s + b[0]


r_energy = gradc.reverse(energy, x=gradc.Duplicated, c=gradc.Active)
r_energy_positional = gradc.reverse(energy, gradc.Duplicated, gradc.Const, gradc.Const)
f_energy = gradc.forward(energy, x=gradc.Duplicated, c=gradc.Duplicated)
g_energy = gradc.grad(energy, wrt=("x", "c"))
r_scale = gradc.reverse(scale_into, x=gradc.Duplicated, c=gradc.Active)
r_bilinear = gradc.reverse(bilinear, gradc.Duplicated, gradc.Const, gradc.Duplicated)
f_bilinear = gradc.forward(bilinear, a=gradc.Duplicated, u=gradc.Duplicated)
r_overwrite = gradc.reverse(overwrite, x=gradc.Duplicated, c=gradc.Active)
g_overwrite = gradc.grad(overwrite, wrt=("x", "c"))
g_scale = gradc.grad(scale_into, wrt=("x", "c"))
r_pick = gradc.reverse(pick, a=gradc.Duplicated, c=gradc.Active)
r_pick_both = gradc.reverse(pick, a=gradc.Duplicated, b=gradc.Duplicated)
g_pick = gradc.grad(pick, wrt=("a", "c"))
