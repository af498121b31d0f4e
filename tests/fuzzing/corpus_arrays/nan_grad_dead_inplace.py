# fuzz: class=nan_grad key=nan_grad:grad seed=4 input_seed=4 opt=0
# where: reduced by hand from seed 4 (an in-place update of a local copy that is never read)
# the gradient of sum(a1) is NaN where a1 < 0: the dead update's partial a1 ** a1 is NaN,
# and 0 * NaN reached the adjoint of t; fixed: adjoints have the strong zero also with active partials
import numpy as np

import gradc
from gradc import f64

FUZZ = {"g": {"a1": ("f64", (3,), "A")}}


@gradc.export
def g(a1: f64[:]) -> f64:
    t = a1.copy()
    t *= a1**a1
    return np.sum(a1)


d_g = gradc.grad(g, wrt="a1")
