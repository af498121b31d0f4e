# ruff: noqa
# expect-message: cannot unify
import gradc
from gradc import f64, i64


@gradc.export
def f(x: f64, b: bool):
    if b:  # error-here
        y = x  # error-here
    else:
        y = (x, x)  # error-here
    return y  # error-here
