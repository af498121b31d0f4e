# fuzz: class=nan_grad key=nan_grad:grad seed=1314 input_seed=1314 opt=0
# fixed: passes/arrays/lower.py skips the loops of an unused elementwise operation (only its shape checks stay)
# where: grad:d_g(np.array([-0.076, 1.462, 1.218], dtype=float64) [R], np.array([[0.0, 0.761, 1.872]], dtype=float64) [R], np.array([0.4, 0.897, -1.4], dtype=float64) [R])
# non-finite derivative nan; other mode [], FD [0.0, 0.0]
import numpy as np

import gradc
from gradc import f64

FUZZ = {"g": {"a0": ("f64", (3,), "A"), "a1": ("f64", (1, 3), "A"), "a2": ("f64", (3,), "A")}}


@gradc.export
def g(a0: f64[:], a1: f64[:, :], a2: f64[:]) -> f64:
    ca2 = a2.copy()
    t3 = ca2 * np.log1p(a2)
    return 1.0


d_g = gradc.grad(g, wrt=("a2",))
