# ruff: noqa
# expect-message: unsupported operator 'is not'
# expect-col: 7
# expect-node: Compare
# expect-help: compare values with !=
import gradc
from gradc import f64, i64


@gradc.export
def f(x: f64, y: f64) -> bool:
    if x is not y:  # error-here
        return True
    return False
