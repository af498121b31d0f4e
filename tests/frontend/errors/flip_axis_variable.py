# ruff: noqa
# expect-message: np.flip() argument 'axis=' must be a constant int, a tuple of ints or None
# expect-col: 27
# expect-node: Name
import gradc
import numpy as np
from gradc import f64, i64


@gradc.export
def f(A: f64[:, :], k: i64) -> f64[:, :]:
    return np.flip(A, axis=k)  # error-here
