# fuzz: class=nan_grad key=nan_grad:grad seed=30091 input_seed=30091 opt=0
# open: np.std of rows made constant by ca1 -= ca1: sqrt'(0) makes the adjoint of the variance inf, and
# inf * 0 (the active partials x - mean) is NaN, as JAX's and as docs/ad.md says (sqrt(x * x) at 0); a
# strong zero for a zero active partial cost ~30% of a product-bound gradient (benchmarks/bench_ad.py)
# where: grad:d_g(...) non-finite derivative nan; other mode [0.0], FD [0.0, 0.0]
import numpy as np

import gradc
from gradc import f64

FUZZ = {"g": {"a1": ("f64", (4, 4), "A"), "s1": "bool"}}


@gradc.export
def g(a1: f64[:, :], s1: bool) -> f64:
    ca1 = a1.copy()
    ca1 -= ca1
    return np.sum((ca1 + s1).std(axis=1, keepdims=True))


d_g = gradc.grad(g, wrt="a1")
t_g = gradc.jvp(g, wrt="a1")
