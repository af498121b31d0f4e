# fuzz: class=ad_fd key=ad_fd:grad seed=162 input_seed=162 opt=0
# where: grad:g0_g(-1.0)
# derivative [0.0] (forward/reverse agree); FD 2.578696844945938 (h=1e-06), 2.578696844962036 (h=0.0001)
import numpy as np

import gradc
from gradc import f64

FUZZ = {"g": {"x0": "f64"}}


@gradc.export
def g(x0: f64) -> f64:
    t20 = np.full(5, x0)
    return t20[2]


g0_g = gradc.grad(g, wrt=("x0",))
