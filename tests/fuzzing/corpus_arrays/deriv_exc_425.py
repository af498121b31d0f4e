# fuzz: class=deriv_exc key=deriv_exc:grad seed=425 input_seed=425 opt=0
# (a fuzzer bug, fixed in tests/fuzzing/array_oracle.py: kept so the oracle stays right)
# where: grad:d_g(np.array([[-1.379], [0.656], [0.601], [1.932]], dtype=float64) [S], -0.38, -1.306)
# the function raises ValueError(operands could not be broadcast together with shapes (0,0) (4,1) () ), the derivative raises ValueError(operands could not be broadcast together (sizes 0 and 4 at axis -2))
import numpy as np

import gradc
from gradc import f64

FUZZ = {"g": {"a0": ("f64", (4, 1), "A"), "s0": "f64", "s1": "f64"}}


@gradc.export
def g(a0: f64[:, :], s0: f64, s1: f64) -> f64:
    t2 = np.where(1.0 > a0[2:0, 2:0], a0, 1.0)
    return 1.0


d_g = gradc.grad(g, wrt=("s1",))
