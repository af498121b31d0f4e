# ruff: noqa
# expect-message: np.full() got multiple values for argument 'fill_value'
# expect-col: 35
# expect-node: Constant
import gradc
import numpy as np
from gradc import f64, i64


@gradc.export
def f(n: i64) -> f64:
    a = np.full(n, 1.0, fill_value=2.0)  # error-here
    return a[0]
