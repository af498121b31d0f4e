# fuzz: class=primal_value key=primal_value:primal seed=100028 input_seed=100028 opt=0
# fixed in the oracle: a float32 norm (a sum) rounds 1 ulp apart from NumPy's (another summation order,
# docs/supported.md) and reaches a float64 argument by `a0 += t1`: float64 arrays of a module with float32
# arguments compare within float32's tolerance
# where: primal:f(np.array([1.258, -0.974, 1.093, 1.2]) [F], np.array([-1.905, 1.118, 1.544, -1.304], dtype=float32) [F])
import numpy as np

import gradc
from gradc import f32, f64

FUZZ = {"f": {"a0": ("f64", (4,), "A"), "a1": ("f32", (4,), "A")}}


@gradc.export
def f(a0: f64[:], a1: f32[:]) -> f64[:]:
    t1 = (2 <= 3) + np.linalg.norm(a1, 1, axis=-1)
    a0 += t1
    return np.full_like(a0, True, dtype=np.float64)
