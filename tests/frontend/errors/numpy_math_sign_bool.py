# ruff: noqa
# expect-message: np.sign() of bool is not supported
import gradc
import numpy as np
from gradc import boolean, i64


@gradc.export
def f(b: boolean) -> i64:
    return np.sign(b)  # error-here
