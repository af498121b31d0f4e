# ruff: noqa
# expect-message: unsupported operand type(s) for np.sqrt(): 'f64[:]'
import gradc
import numpy as np
from gradc import f64


@gradc.export
def f(a: f64[:]) -> f64:
    b = np.sqrt(a)  # error-here
    return b[0]
