# ruff: noqa
# expect-message: a field of an f-string raise message must be an int, a bool or a float (f64), not f32
import gradc
from gradc import f32, f64, i64


@gradc.export
def f(x: f32) -> f32:
    if x < 0.0:
        raise ValueError(f"bad x={x}")  # error-here
    return x
