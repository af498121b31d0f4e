# ruff: noqa
# expect-message: ufunc 'positive' did not contain a loop with signature matching types <class 'numpy.dtypes.BoolDType'> -> None (NumPy's TypeError)
import numpy as np
import gradc
from gradc import f64


@gradc.export
def f(x: f64[:]) -> f64:
    m = x > 0.0
    return np.sum(+m) * 1.0  # error-here
