# ruff: noqa
# expect-message: unsupported operator 'not in'
# expect-col: 11
# expect-node: Compare
# expect-help: compare with != (x != a and x != b)
import gradc
from gradc import f64, i64


@gradc.export
def f(x: f64) -> bool:
    return x not in (1.0, 2.0)  # error-here
