# ruff: noqa
# expect-message: an index can only have a single ellipsis ('...')
import gradc
from gradc import f64


@gradc.export
def f(a: f64[:, :, :]) -> f64:
    b = a[..., 0, ...]  # error-here
    return b[0]
