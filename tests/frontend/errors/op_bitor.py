# ruff: noqa
# expect-message: unsupported operator '|'
# expect-col: 16
# expect-node: BinOp
import gradc
from gradc import f64, i64


@gradc.export
def f(a: i64, b: i64) -> i64:
    return 2 * (a | b)  # error-here
