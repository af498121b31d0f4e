# fuzz: class=primal_value key=primal_value:primal seed=620470 input_seed=620470 opt=0
# where: reduced by hand from seed 620470 (arrays-more, session 9): argument 0 after the call:
# array([3., 2., 1., 0.]) (NumPy) vs array([2., 3., 1., 0.]) (gradc). a0[2] and a0[3] tie; NumPy's
# default argsort kind leaves ties as its SIMD quicksort does, gradc's sort is always stable (its
# documented behaviour). The generator now asks for kind='stable', which both must agree on.
import numpy as np

import gradc
from gradc import f64

FUZZ = {"f": {"a0": ("f64", (4,), "A"), "s0": "f64"}}


@gradc.export
def f(a0: f64[:], s0: f64) -> f64:
    a0[1:] = s0
    a0[-2:] -= 2.0
    a0[:] = np.argsort((a0).flatten(), axis=-1, kind="stable")
    return np.ceil(s0)
