# ruff: noqa
# expect-message: integer constant -9223372036854775809 does not fit in 64 bits
# expect-col: 15
# expect-node: UnaryOp
import gradc
from gradc import i64


@gradc.export
def f(a: i64) -> i64:
    return a + -9223372036854775809  # error-here
