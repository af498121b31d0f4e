# ruff: noqa
# expect-message: unsupported constant
# expect-col: 8
# expect-node: Constant
import gradc
from gradc import f64, i64


@gradc.export
def f(x: f64) -> f64:
    s = "abc"  # error-here
    return x
