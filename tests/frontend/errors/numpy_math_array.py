# ruff: noqa
# expect-message: np.exp() of float32 is not supported (NumPy computes it in float32; gradc's math functions compute in float64)
import gradc
import numpy as np
from gradc import f32


@gradc.export
def f(a: f32[:]) -> f32:
    b = np.exp(a)  # error-here
    return b[0]
