# fuzz: class=nan_grad key=nan_grad:grad seed=102156 input_seed=102156 opt=0
# fixed: np.std at a zero spread (an axis of length 1, or equal elements) has derivative 0 (norm_sqrt, passes/ad/rules/math.py), not inf * 0 = NaN
# where: grad:d_g(np.array([1.051, 0.281], dtype=float64) [R], np.array([[-0.459, -1.897]], dtype=float64) [S], np.array([False, False], dtype=bool) [F], True)
# non-finite derivative nan; other mode [], FD [0.0, 0.0]
import numpy as np

import gradc
from gradc import f64

FUZZ = {
    "g": {
        "a0": ("f64", (2,), "A"),
        "a1": ("f64", (1, 2), "A"),
        "a2": ("bool", (2,), "A"),
        "s0": "bool",
    }
}


@gradc.export
def g(a0: f64[:], a1: f64[:, :], a2: "bool[:]", s0: bool) -> f64:
    t2 = a1.std(axis=0, keepdims=True)
    return np.sum(t2)


d_g = gradc.grad(g, wrt=("a1",))
