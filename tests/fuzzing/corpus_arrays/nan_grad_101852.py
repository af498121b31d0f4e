# fuzz: class=nan_grad key=nan_grad:grad seed=101852 input_seed=101852 opt=0
# fixed: d(a ** b)/db is 0 where a <= 0 (passes/ad/rules/arith.py): the exponent's partials are 0, not -inf and +inf;
# before: s1 ** (t3 - ca0) with t3 and ca0 copies of a0 and s1 == 0 summed -inf and +inf in a0: NaN
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
