# ruff: noqa
# expect-message: np.power() of int64 is not supported (only of floats)
import gradc
import numpy as np
from gradc import i64


@gradc.export
def f(m: i64, n: i64) -> i64:
    return np.power(m, n)  # error-here
