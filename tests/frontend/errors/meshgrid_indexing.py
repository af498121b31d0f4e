# ruff: noqa
# expect-message: np.meshgrid() argument 'indexing=' must be the constant 'xy' or 'ij'
import gradc
import numpy as np
from gradc import f64


@gradc.export
def grid(x: f64[:], y: f64[:]) -> f64:
    X, Y = np.meshgrid(x, y, indexing="yx")  # error-here
    return np.sum(X * Y)
