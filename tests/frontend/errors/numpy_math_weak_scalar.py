# ruff: noqa
# expect-message: np.minimum() of float32 and float64: NumPy's result type depends on whether the float64 is a Python scalar (NEP 50)
import gradc
import numpy as np
from gradc import f32


@gradc.export
def f(x: f32) -> f32:
    return np.minimum(x, 0.5)  # error-here
