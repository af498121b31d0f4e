# ruff: noqa
# expect-message: unsupported expression 'Dict'
# expect-col: 8
# expect-node: Dict
import gradc
from gradc import f64, i64


@gradc.export
def f(x: f64) -> f64:
    d = {1: x}  # error-here
    return x
