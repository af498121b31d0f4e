# fuzz: class=nan_grad key=nan_grad:grad seed=101464 input_seed=101464 opt=0
# fixed: np.std at a zero spread (an axis of length 1, or equal elements) has derivative 0 (norm_sqrt, passes/ad/rules/math.py), not inf * 0 = NaN
# where: grad:d_g(np.array([0.0, -1.666, 0.835], dtype=float64) [S], -1.934)
# non-finite derivative nan; other mode [], FD [0.0, 0.0]
import numpy as np

import gradc
from gradc import f64

FUZZ = {"g": {"a0": ("f64", (3,), "A"), "s0": "f64"}}


@gradc.export
def g(a0: f64[:], s0: f64) -> f64:
    t7 = a0
    return np.std(np.mean(t7, axis=-1, keepdims=True))


d_g = gradc.grad(g, wrt=("a0",))
