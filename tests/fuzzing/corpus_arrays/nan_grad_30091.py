# fuzz: class=nan_grad key=nan_grad:grad seed=30091 input_seed=30091 opt=0
# fixed: np.std's square root is norm_sqrt, derivative 0 at a zero spread (passes/ad/rules/math.py); before: rows
# made constant by ca1 -= ca1 gave sqrt'(0) = inf times the active partials x - mean = 0: NaN
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
