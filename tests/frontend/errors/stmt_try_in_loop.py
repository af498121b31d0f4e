# ruff: noqa
# expect-message: a try statement is not supported in compiled code
# expect-col: 12
# expect-node: Try
# expect-help: test the condition with if
# expect-carets: 4
import gradc
from gradc import f64, i64


@gradc.export
def f(x: f64, n: i64) -> f64:
    s = 0.0
    for i in range(n):
        if i > 2:
            try:  # error-here
                s += x / i
            finally:
                s += 1.0
    return s
