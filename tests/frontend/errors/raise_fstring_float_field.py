# ruff: noqa
# expect-message: a field of an f-string raise message must be an integer, not f64
import gradc
from gradc import f64, i64


@gradc.export
def f(x: f64) -> f64:
    if x < 0.0:
        raise ValueError(f"bad x={x}")  # error-here
    return x
