# ruff: noqa
# expect-message: keyword arguments are not supported
# expect-col: 11
# expect-node: Call
import gradc
from gradc import f64, i64


@gradc.export
def f(x: f64) -> f64:
    return min(x, 2.0, key=None)  # error-here
