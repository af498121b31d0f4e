# ruff: noqa
# expect-message: the format spec of an f-string field in a raise message must be a constant
import gradc
from gradc import f64, i64


@gradc.export
def f(a: i64, w: i64) -> i64:
    if a < 0:
        raise ValueError(f"{a:{w}}")  # error-here
    return a
