# ruff: noqa
# expect-message: np.meshgrid() takes exactly two 1-D arrays here
import gradc
import numpy as np
from gradc import f64


@gradc.export
def grid(x: f64[:], y: f64[:], z: f64[:]) -> f64:
    X, Y, Z = np.meshgrid(x, y, z)  # error-here
    return np.sum(X * Y * Z)
