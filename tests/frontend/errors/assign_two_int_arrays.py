# ruff: noqa
# expect-message: assigning with an integer array among several indices (a[rows, cols] = v) is not supported: assign in a loop
import gradc
import numpy as np
from gradc import f64, i64


@gradc.export
def scatter(a: f64[:, :], labels: i64[:]) -> f64:
    a[np.arange(a.shape[0]), labels] = 0.0  # error-here
    return a[0, 0]
