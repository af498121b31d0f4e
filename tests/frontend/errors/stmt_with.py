# ruff: noqa
# expect-message: a with statement is not supported in compiled code
# expect-col: 4
# expect-node: With
# expect-carets: 7
import gradc
from gradc import f64, i64


@gradc.export
def f(x: f64) -> f64:
    y = 0.0
    with x:  # error-here
        y = x
    return y
