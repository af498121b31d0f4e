# ruff: noqa
# expect-message: range() inside reversed() needs a constant integer step
# expect-col: 34
# expect-node: Name
import gradc
from gradc import f64, i64


@gradc.export
def f(n: i64, k: i64) -> i64:
    s = 0
    for i in reversed(range(0, n, k)):  # error-here
        s += i
    return s
