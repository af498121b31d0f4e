# ruff: noqa
# expect-message: np.sqrt() of bool is not supported (NumPy computes it in float16)
import gradc
import numpy as np
from gradc import boolean, f64


@gradc.export
def f(b: boolean) -> f64:
    return np.sqrt(b)  # error-here
