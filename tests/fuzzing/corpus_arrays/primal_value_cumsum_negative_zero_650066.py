# fuzz: class=primal_value key=primal_value:primal seed=650066 input_seed=650066 opt=0
# where: from seed 650066 (arrays-more, session 9): arrays differ (-3.141592653589793 vs -0.0).
# s1 / a1 of a False s1 is a signed zero; NumPy's cumsum starts from the first element, so a
# -0.0 stays -0.0, where gradc's running sum started from +0.0 (+0.0 + -0.0 is +0.0), and
# arctan2(-0.0, +-0.0) is -0.0 or -pi. Fixed: passes/arrays/reduce.py starts from -0.0, the exact
# identity of float addition.
import numpy as np

import gradc
from gradc import f64

FUZZ = {"f": {"a0": ("f64", (2, 1), "A"), "a1": ("f64", (2, 3), "A"), "s0": "f64", "s1": "bool"}}


@gradc.export
def f(a0: f64[:, :], a1: f64[:, :], s0: f64, s1: bool) -> f64[:, :]:
    t1 = s1 / a1
    return np.arctan2(np.cumprod(np.concatenate((t1, t1), axis=-1), axis=-1), np.cumsum(t1))
