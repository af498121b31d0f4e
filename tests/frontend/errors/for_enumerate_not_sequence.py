# ruff: noqa
# expect-message: unsupported argument of enumerate() in a for loop: only arrays, tuples, range(...), enumerate(...), zip(...) and reversed(...) are supported
# expect-col: 26
# expect-node: BinOp
import gradc
from gradc import f64, i64


@gradc.export
def f(a: f64[:]) -> f64:
    s = 0.0
    for i, v in enumerate(a * 2.0):  # error-here
        s += v
    return s
