# ruff: noqa
# expect-message: unsupported operator '@'
# expect-col: 11
# expect-node: BinOp
# expect-help: write the product as a loop
import gradc
from gradc import f64, i64


@gradc.export
def f(x: f64, y: f64) -> f64:
    return x @ y  # error-here
