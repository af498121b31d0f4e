# fuzz: class=nan_grad key=nan_grad:value_and_grad seed=1092 input_seed=1092 opt=0
# where: value_and_grad:v0_g(0.0, np.array([[1.6404224500217333, 0.1666252823960419]]) [C], 0.9188, -1.8323)
# non-finite derivative nan; other mode [], FD [0.0, 0.0]
import math

import gradc
from gradc import f64

FUZZ = {"g": {"x0": "f64", "m1": ("f64", (1, 2), "C"), "x2": "f64", "x3": "f64"}}


@gradc.export
def g(x0: f64, m1: f64[:, ::1], x2: f64, x3: f64) -> f64:
    return math.sqrt(x3 - x3)


v0_g = gradc.value_and_grad(g, wrt=("x3",))
