# ruff: noqa
# expect-message: unsupported operator '~'
# expect-col: 11
# expect-node: UnaryOp
import gradc
from gradc import f64, i64


@gradc.export
def f(a: i64) -> i64:
    return ~a  # error-here
