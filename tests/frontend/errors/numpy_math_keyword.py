# ruff: noqa
# expect-message: np.maximum() argument 'dtype=' is not supported (only out=)
# expect-col: 34
# expect-node: Name
import gradc
import numpy as np
from gradc import f64


@gradc.export
def f(x: f64, y: f64) -> f64:
    return np.maximum(x, y, dtype=float)  # error-here
