# ruff: noqa
# expect-message: a[rows, cols] of a 3-D array needs 3 indices, got 2 (slices among integer-array indices are not supported)
import gradc
import numpy as np
from gradc import f64, i64


@gradc.export
def planes(t: f64[:, :, :], rows: i64[:]) -> f64:
    return np.sum(t[rows, rows])  # error-here
