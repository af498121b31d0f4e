# ruff: noqa
# expect-message: np.linalg.cholesky() argument 'upper=' is not supported (np.linalg.cholesky(a) of a square matrix or a stack (..., M, M): the lower factor)
import gradc
import numpy as np
from gradc import f64


@gradc.export
def factor(a: f64[:, :]) -> f64[:, :]:
    return np.linalg.cholesky(a, upper=True)  # error-here
