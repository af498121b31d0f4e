# ruff: noqa
# expect-message: the message of raise must be a constant string
# expect-col: 8|25
# expect-node: Raise|Name
import gradc
from gradc import f64, i64


@gradc.export
def f(x: f64) -> f64:
    if x < 0.0:
        raise ValueError(x)  # error-here
    return x
