# ruff: noqa
# expect-message: iterating over a tuple is supported only when its elements are scalars of one type, got tuple[f64,i64]
# expect-col: 4|13
# expect-node: For|Name
import gradc
from gradc import f64, i64


@gradc.export
def f(x: f64) -> f64:
    t = (x, 2)
    s = 0.0
    for v in t:  # error-here
        s += v
    return s
