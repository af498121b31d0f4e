"""Second derivatives with analytic Hessians, for tests/ad/test_ad_higher.py:
Rosenbrock, a quadratic form, log-sum-exp, and a function of a scalar and an array
(``gradc.hessian``, ``gradc.jvp`` of ``gradc.grad``, ``gradc.grad`` of ``gradc.grad``)."""

import math

import gradc
from gradc import f64


@gradc.export
def rosen(x: f64[:]) -> f64:
    s = 0.0
    for i in range(x.shape[0] - 1):
        s += 100.0 * (x[i + 1] - x[i] * x[i]) ** 2 + (1.0 - x[i]) ** 2
    return s


@gradc.export
def quad(x: f64[:], a: f64[:, :]) -> f64:
    s = 0.0
    for i in range(x.shape[0]):
        for j in range(x.shape[0]):
            s += x[i] * a[i, j] * x[j]
    return s


@gradc.export
def lse(x: f64[:]) -> f64:
    m = x[0]
    for i in range(x.shape[0]):
        m = max(m, x[i])
    s = 0.0
    for i in range(x.shape[0]):
        s += math.exp(x[i] - m)
    return m + math.log(s)


@gradc.export
def mixed(a: f64, x: f64[:]) -> f64:
    s = 0.0
    for i in range(x.shape[0]):
        s += x[i] * x[i]
    return a * a * s + math.sin(a)


h_rosen = gradc.hessian(rosen)
h_quad = gradc.hessian(quad, wrt="x")
h_lse = gradc.hessian(lse)
h_mixed = gradc.hessian(mixed, wrt=("a", "x"))
g_rosen = gradc.grad(rosen)
hvp_rosen = gradc.jvp(g_rosen)
ga_mixed = gradc.grad(mixed, wrt="a")
gga_mixed = gradc.grad(ga_mixed, wrt=("a", "x"))
vgga_mixed = gradc.value_and_grad(ga_mixed, wrt="a")
# the same gradient under another name: its derivatives are the same functions
ga_again = gradc.grad(mixed, wrt="a")
t_ga_again = gradc.jvp(ga_again, wrt="a")
t_ga_mixed = gradc.jvp(ga_mixed, wrt="a")
# vjp of a gradient: the cotangent times the Hessian
v_rosen = gradc.vjp(g_rosen)
v_ga_mixed = gradc.vjp(ga_mixed, wrt=("a", "x"))
