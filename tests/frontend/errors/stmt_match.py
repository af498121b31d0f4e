# ruff: noqa
# expect-message: unsupported statement 'Match'
# expect-col: 4
# expect-node: Match
import gradc
from gradc import f64, i64


@gradc.export
def f(n: i64) -> i64:
    r = 0
    match n:  # error-here
        case 1:
            r = 10
        case _:
            r = 20
    return r
