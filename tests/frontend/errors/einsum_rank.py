# ruff: noqa
# expect-message: axes don't match array
import numpy as np

import gradc
from gradc import f64


@gradc.export
def f(a: f64[:], b: f64[:]) -> f64:
    return np.sum(np.einsum("ij,j->i", a, b))  # error-here
