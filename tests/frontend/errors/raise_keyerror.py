# ruff: noqa
# expect-message: raise supports only ValueError
# expect-col: 8
# expect-node: Raise
import gradc
from gradc import f64, i64


@gradc.export
def f(x: f64) -> f64:
    if x < 0.0:
        raise KeyError("negative")  # error-here
    return x
