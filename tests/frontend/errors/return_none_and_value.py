# ruff: noqa
# expect-message: returns a value on some paths and None on others
import gradc
from gradc import f64, i64


@gradc.export
def f(x: f64):
    if x > 0.0:
        return None
    return x  # error-here
