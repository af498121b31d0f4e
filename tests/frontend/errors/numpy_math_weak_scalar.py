# ruff: noqa
# expect-message: np.minimum(): NumPy's result type depends on whether the f64 operand is a Python scalar (f32, NEP 50)
import gradc
import numpy as np
from gradc import f32, f64


@gradc.export
def f(x: f32, s: f64, d: f64[:]) -> f32:
    v = d[0]
    for i in range(3):
        v = s  # a NumPy float64 on the first pass, a Python float after
    return np.minimum(x, v)  # error-here
