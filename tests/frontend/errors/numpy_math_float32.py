# ruff: noqa
# expect-message: np.exp() of float32 is not supported (NumPy computes it in float32
import gradc
import numpy as np
from gradc import f32


@gradc.export
def f(x: f32) -> f32:
    return np.exp(x)  # error-here
