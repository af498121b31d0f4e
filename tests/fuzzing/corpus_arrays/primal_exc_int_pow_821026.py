# fuzz: class=primal_exc key=primal_exc:primal seed=821026 input_seed=821026 opt=0
# where: primal:f(np.array([], dtype=float64) [C], -3)
# NumPy raises ValueError(Integers to negative integer powers are not allowed.), gradc raises ValueError(negative exponent in integer power: the result would be a float, which gradc's static types do not allow)
# fixed: Pow carries `numpy` (an operand is a NumPy int) from inference to codegen
import numpy as np

import gradc
from gradc import f64, i64

FUZZ = {"f": {"a0": ("f64", (0, 1), "A"), "s0": "i64"}}


@gradc.export
def f(a0: f64[:, :], s0: i64) -> i64:
    return np.maximum(s0, 2) ** s0
