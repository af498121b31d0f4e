# ruff: noqa
# expect-message: unsupported operator 'is'
# expect-col: 11
# expect-node: Compare
# expect-help: compare values with ==
import gradc
from gradc import f64, i64


@gradc.export
def f(x: f64, y: f64) -> bool:
    return x is y  # error-here
