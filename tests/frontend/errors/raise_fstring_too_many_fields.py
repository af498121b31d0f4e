# ruff: noqa
# expect-message: an f-string raise message may have at most 3 fields
import gradc
from gradc import f64, i64


@gradc.export
def f(a: i64, b: i64) -> i64:
    if a < b:
        raise ValueError(f"{a} {b} {a + b} {a - b}")  # error-here
    return a
