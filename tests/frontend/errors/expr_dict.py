# ruff: noqa
# expect-message: a dict literal is not supported in compiled code
# expect-col: 8
# expect-node: Dict
# expect-help: pass the values as separate arguments
# expect-carets: 6
import gradc
from gradc import f64, i64


@gradc.export
def f(x: f64) -> f64:
    d = {1: x}  # error-here
    return x
