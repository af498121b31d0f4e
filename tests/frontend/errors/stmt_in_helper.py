# ruff: noqa
# expect-message: a with statement is not supported in compiled code
# expect-col: 4
# expect-node: With
# expect-carets: 7
# expect-note: in _helper(x: f64), called from f at *stmt_in_helper.py:19
import gradc
from gradc import f64, i64


def _helper(x):
    with x:  # error-here
        return x
    return 0.0


@gradc.export
def f(x: f64) -> f64:
    return _helper(x) + 1.0
