# ruff: noqa
# expect-message: may be used before assignment
import gradc
from gradc import f64, i64


@gradc.export
def f(x: f64, b: bool) -> f64:
    if b:
        y = x * 2.0
    return y  # error-here
