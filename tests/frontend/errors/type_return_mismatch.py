# ruff: noqa
# expect-message: return type
import gradc
from gradc import f64, i64


@gradc.export
def f(x: f64) -> f64:  # error-here
    return x, x  # error-here
