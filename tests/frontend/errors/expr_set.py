# ruff: noqa
# expect-message: a set literal is not supported in compiled code
# expect-col: 8
# expect-node: Set
# expect-help: use a tuple
# expect-carets: 8
import gradc
from gradc import f64, i64


@gradc.export
def f(x: f64) -> f64:
    s = {x, 1.0}  # error-here
    return x
