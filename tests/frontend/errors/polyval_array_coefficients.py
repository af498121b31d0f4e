# ruff: noqa
# expect-message: np.polyval() coefficients must be a literal list or tuple here
import gradc
import numpy as np
from gradc import f64


@gradc.export
def poly(p: f64[:], x: f64[:]) -> f64:
    return np.sum(np.polyval(p, x))  # error-here
