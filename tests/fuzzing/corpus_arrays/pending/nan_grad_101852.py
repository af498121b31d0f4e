# fuzz: class=nan_grad key=nan_grad:grad seed=101852 input_seed=101852 opt=0
# open: s1 ** (t3 - ca0) with t3 and ca0 copies of a0 and s1 == 0: the exponent is 0 everywhere, but the
# partial of ** in its exponent, r * log(0), is -inf, and the adjoints -inf (t3) and +inf (ca0) meet in a0:
# NaN (forward mode: the exponent's tangent is exactly 0, strong zero, 0). As nan_grad_274: a partial that is
# infinite or undefined where the total derivative exists only by cancellation; JAX gives NaN too
# where: grad:d_g(np.array([1.598]) [F], ..., 0.663, 0.0) non-finite derivative nan; other mode [0.0], FD [0.0, 0.0]
import numpy as np

import gradc
from gradc import f64

FUZZ = {"g": {"a0": ("f64", (1,), "A"), "a1": ("f64", (3, 5), "A"), "s0": "f64", "s1": "f64"}}


@gradc.export
def g(a0: f64[:], a1: f64[:, :], s0: f64, s1: f64) -> f64:
    ca0 = a0.copy()
    t3 = a0.copy()
    return np.sum(s1 ** (t3 - ca0[-2:]))


d_g = gradc.grad(g, wrt=("a0", "a1", "s0", "s1"))
