# fuzz: class=primal_value key=primal_value:primal seed=820530 input_seed=820530 opt=0
# abs() of NumPy's bool is a bool, of Python's an int: `np.exp(1) // ~abs(np.all(a))` gave
# -2.0 for NumPy's inf; now a compile error (tests/frontend/errors/abs_bool_scalar.py).
# Kept: the forms that stay valid (int() of NumPy's bool, abs() of a bool parameter).
import numpy as np

import gradc
from gradc import f64

FUZZ = {"f": {"a0": ("f64", (3, 4), "A"), "c0": "bool"}}


@gradc.export
def f(a0: f64[:, :], c0: bool) -> f64:
    t1 = np.all(np.where(a0 > a0, 1, 2.0))
    return np.exp(1) // ~int(t1) + np.exp(1) // ~abs(c0)
