"""JAX's names in derivative declarations (tests/ad/test_ad_jax_names.py): ``argnums=``
as an alias of ``wrt`` positions, ``has_aux=True``."""

import numpy as np

import gradc
from gradc import f64, i64


@gradc.export
def f(x: f64, w: f64[:], n: i64) -> tuple[f64, i64]:
    s = 0.0
    for i in range(w.shape[0]):
        s += w[i] * w[i] * x
    return s, n + w.shape[0]


@gradc.export
def plain(x: f64, w: f64[:], n: i64) -> f64:
    s = 0.0
    for i in range(w.shape[0]):
        s += w[i] * w[i] * x
    return s


@gradc.export
def g(x: f64, w: f64[:]) -> tuple[f64, f64[:]]:
    out = np.zeros(w.shape[0])
    for i in range(w.shape[0]):
        out[i] = w[i] * x
    return x * x * w[0], out


by_argnums = gradc.grad(plain, argnums=(0, 1))
by_wrt = gradc.grad(plain, wrt=("x", "w"))
one_argnum = gradc.grad(plain, argnums=1)
aux_grad = gradc.grad(f, argnums=(0, 1), has_aux=True)
aux_value_and_grad = gradc.value_and_grad(f, argnums=1, has_aux=True)
array_aux = gradc.grad(g, has_aux=True)
no_aux = gradc.grad(plain, has_aux=False)
