# ruff: noqa
# expect-message: a match statement is not supported in compiled code
# expect-col: 4
# expect-node: Match
# expect-help: use if / elif / else
# expect-carets: 8
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
