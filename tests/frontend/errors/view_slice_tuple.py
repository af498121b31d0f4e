# ruff: noqa
# expect-message: slicing a value of type tuple[f64,f64] is not supported
import gradc
from gradc import f64


@gradc.export
def f(x: f64) -> f64:
    t = (x, x)
    u = t[1:]  # error-here
    return x
