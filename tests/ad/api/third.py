"""Third derivatives, for tests/ad/test_ad_third.py: ``gradc.hessian`` of a gradient,
``gradc.jvp`` of a Hessian-vector product, ``gradc.grad`` of ``grad`` of ``grad``,
``gradc.jacfwd`` of a Hessian."""

import math

import gradc
from gradc import f64


@gradc.export
def f(a: f64, x: f64[:]) -> f64:
    s = 0.0
    for i in range(x.shape[0]):
        s += math.sin(a * x[i]) * x[i] * x[i] + math.exp(0.3 * a * x[i])
    return s * a


h_f = gradc.hessian(f, wrt=("a", "x"))
g_a = gradc.grad(f, wrt="a")
h_g_a = gradc.hessian(g_a, wrt=("a", "x"))  # ∂²(∂f/∂a)/∂p∂q
g = gradc.grad(f, wrt=("a", "x"))
hvp = gradc.jvp(g, wrt=("a", "x"))
t3 = gradc.jvp(hvp, wrt=("a", "x"))  # (a, x, d_a, d_x, dd_a, dd_x)
gg_a = gradc.grad(g_a, wrt="a")
ggg_a = gradc.grad(gg_a, wrt="a")
h_x = gradc.hessian(f, wrt="x")
jh_x = gradc.jacfwd(h_x, wrt=("a", "x"))  # ((n, n), (n, n, n))
jh_f = gradc.jacfwd(h_f, wrt="x")  # nested tuples: ((n,), (n, n)), ((n, n), (n, n, n))
