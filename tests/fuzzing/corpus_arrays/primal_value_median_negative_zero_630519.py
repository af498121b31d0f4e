# fuzz: class=primal_value key=primal_value:primal seed=630519 input_seed=630519 opt=0
# where: from seed 630519 (arrays-more, session 9): arrays differ (-inf vs inf). a0 % a0 of
# negative values is -0.0 everywhere (the divisor's sign); NumPy's median is the mean of the
# middle elements, a sum starting at +0.0, so +0.0; gradc's picked the middle element, -0.0, and
# x // -0.0 flipped the infinities. Fixed: passes/arrays/sort.py adds +0.0 as NumPy's sum does.
import numpy as np

import gradc
from gradc import f64

FUZZ = {"f": {"a0": ("f64", (4,), "A")}}


@gradc.export
def f(a0: f64[:]) -> f64[:]:
    return a0[::2] // np.median((a0 % a0), axis=None)
