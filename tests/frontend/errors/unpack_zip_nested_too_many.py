# ruff: noqa
# expect-message: cannot unpack a tuple of 2 elements into 3 names
# expect-col: 11
# expect-node: Tuple
import gradc
from gradc import f64, i64


@gradc.export
def f(a: f64[:], b: f64[:]) -> f64:
    s = 0.0
    for i, (u, v, w) in enumerate(zip(a, b)):  # error-here
        s += u * v
    return s
