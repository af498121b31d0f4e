# fuzz: class=nan_grad key=nan_grad:grad seed=274 input_seed=274 opt=0
# fixed: d(a ** b)/db is 0 where a <= 0 (TensorFlow's convention; passes/ad/rules/arith.py); before: a0 ** (a0 / a0)
# at a0 < 0 summed the NaN partials r * log(a0) of the exponent's two uses (1/a0 - 1/a0 = 0 only as a sum): NaN
# where: grad:d_g(np.array([[-0.076, -0.304, 0.443, 1.364, 1.851]], dtype=float64) [S])
# non-finite derivative nan; other mode [], FD [17.394664864056608, 17.394664862706577]
import numpy as np

import gradc
from gradc import f64

FUZZ = {"g": {"a0": ("f64", (1, 5), "A")}}


@gradc.export
def g(a0: f64[:, :]) -> f64:
    t2 = a0 / a0
    t3 = a0**t2
    return np.sum(a0 + t3.sum())


d_g = gradc.grad(g, wrt="a0")
