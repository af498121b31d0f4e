# fuzz: class=ad_fd key=ad_fd:grad seed=58 input_seed=58 opt=0
# where: grad:g0_f(np.array([1.486540017180277]) [F])
# derivative [-0.18925173057615474, -0.1892517305761547] (forward/reverse agree); FD 0.47670917391329226 (h=1e-06), 0.4767091781210375 (h=0.0001)
import numpy as np

import gradc
from gradc import f64

FUZZ = {"f": {"a0": ("f64", (1,), "A")}}


@gradc.export
def f(a0: f64[:]) -> f64:
    t20 = np.full(3, a0[-1])
    return t20[0]


g0_f = gradc.grad(f, wrt=("a0",))
