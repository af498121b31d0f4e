# ruff: noqa
# expect-message: zip() in a for loop takes positional sequences only
# expect-col: 16
# expect-node: Call
import gradc
from gradc import f64, i64


@gradc.export
def f(a: f64[:], b: f64[:]) -> f64:
    s = 0.0
    for x, y in zip(a, b, strict=True):  # error-here
        s += x * y
    return s
