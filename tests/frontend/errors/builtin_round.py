# ruff: noqa
# expect-message: the builtin 'round' is not supported in compiled code
# expect-col: 11
# expect-node: Name
# expect-help: use math.floor, math.ceil or math.trunc
import gradc
from gradc import f64


@gradc.export
def f(x: f64) -> f64:
    return round(x)  # error-here
