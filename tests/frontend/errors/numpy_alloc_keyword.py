# ruff: noqa
# expect-message: np.zeros() keyword 'order' is not supported (only shape=, dtype=)
# expect-col: 37
# expect-node: Constant
import gradc
import numpy as np
from gradc import f64, i64


@gradc.export
def f(n: i64) -> f64:
    a = np.zeros(shape=(n, 2), order="F")  # error-here
    return a[0, 0]
