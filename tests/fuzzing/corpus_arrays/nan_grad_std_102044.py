# fuzz: class=nan_grad key=nan_grad:grad seed=102044 input_seed=102044 opt=0
# fixed: np.std at a zero spread (an axis of length 1, or equal elements) has derivative 0 (norm_sqrt, passes/ad/rules/math.py), not inf * 0 = NaN
# where: grad:d_g(np.array([[1.561, 0.658]], dtype=float64) [R], False)
# non-finite derivative nan; other mode [], FD [0.0, 0.0]
import numpy as np

import gradc
from gradc import f64

FUZZ = {"g": {"a0": ("f64", (1, 2), "A"), "s0": "bool"}}


@gradc.export
def g(a0: f64[:, :], s0: bool) -> f64:
    ca0 = a0.copy()
    ca0[::2, ::-1] += ca0
    return np.sum(ca0.std(axis=1))


d_g = gradc.grad(g, wrt="a0")
