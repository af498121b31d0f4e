# ruff: noqa
# expect-message: ~ of a bool is ambiguous: Python's bool gives an int (~True is -2), NumPy's bool (from np.all, np.any or a bool array's element) gives its logical not: write 'not b' for the logical not, or '~int(b)' for Python's int
import numpy as np
import gradc
from gradc import f64


@gradc.export
def f(a: f64[:, :]) -> f64[:]:
    return a[0, 1:] + ~np.all(a, axis=0)[0]  # error-here
