# ruff: noqa
# expect-message: unsupported operator 'in'
# expect-col: 11
# expect-node: Compare
# expect-help: compare with == (x == a or x == b)
import gradc
from gradc import f64, i64


@gradc.export
def f(x: f64) -> bool:
    return x in (1.0, 2.0)  # error-here
