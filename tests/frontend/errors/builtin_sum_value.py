# ruff: noqa
# expect-message: the builtin 'sum' is not supported in compiled code
# expect-col: 8
# expect-node: Name
import gradc
from gradc import f64


@gradc.export
def f(x: f64) -> f64:
    s = sum  # error-here
    return x
