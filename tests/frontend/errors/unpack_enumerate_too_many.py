# ruff: noqa
# expect-message: cannot unpack a tuple of 2 elements into 3 names
# expect-col: 8
# expect-node: Tuple
import gradc
from gradc import f64, i64


@gradc.export
def f(a: f64[:]) -> f64:
    s = 0.0
    for i, v, w in enumerate(a):  # error-here
        s += v
    return s
