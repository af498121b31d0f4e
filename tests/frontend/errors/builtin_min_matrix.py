# ruff: noqa
# expect-message: min() of a 2-D array is not supported (it iterates over the rows: use np.min/np.max/np.sum)
import gradc
from gradc import f64


@gradc.export
def f(a: f64[:, :]) -> f64:
    return min(a)  # error-here
