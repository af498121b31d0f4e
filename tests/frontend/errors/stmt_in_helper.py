# ruff: noqa
# expect-message: unsupported statement 'With'
# expect-col: 4
# expect-node: With
import gradc
from gradc import f64, i64


def _helper(x):
    with x:  # error-here
        return x
    return 0.0


@gradc.export
def f(x: f64) -> f64:
    return _helper(x) + 1.0
