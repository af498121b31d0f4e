# ruff: noqa
# expect-message: name 'foo' is not defined
# expect-col: 15
# expect-node: Name
import gradc
from gradc import f64, i64


@gradc.export
def f(x: f64) -> f64:
    y = x + 1.0
    return y * foo  # error-here
