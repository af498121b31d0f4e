# ruff: noqa
# expect-message: unsupported expression 'JoinedStr'
# expect-col: 8
# expect-node: JoinedStr
import gradc
from gradc import f64, i64


@gradc.export
def f(x: f64) -> f64:
    s = f"{x}"  # error-here
    return x
