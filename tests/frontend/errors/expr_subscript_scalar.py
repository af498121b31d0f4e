# ruff: noqa
# expect-message: cannot unpack or subscript a value of type f64
# expect-col: 11
# expect-node: Subscript
import gradc
from gradc import f64, i64


@gradc.export
def f(x: f64) -> f64:
    return x[0]  # error-here
