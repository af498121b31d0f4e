# ruff: noqa
# expect-message: np.where() of scalars is not supported (only of arrays)
import gradc
import numpy as np
from gradc import f64


@gradc.export
def f(x: f64) -> f64:
    return np.where(x > 0.0, x, 0.0)  # error-here
