# ruff: noqa
# expect-message: np.einsum() subscripts 'ijk,kl->ijl' are not supported
import numpy as np

import gradc
from gradc import f64


@gradc.export
def f(a: f64[:, :], b: f64[:, :]) -> f64:
    return np.sum(np.einsum("ijk,kl->ijl", a, b))  # error-here
