# ruff: noqa
# expect-message: np.matmul() of arrays of more than 2 dimensions is not supported
import gradc
from gradc import f64


@gradc.export
def f(a: f64[:, :, :], b: f64[:, :]) -> f64:
    c = a @ b  # error-here
    return 0.0
