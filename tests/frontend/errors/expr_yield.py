# ruff: noqa
# expect-message: yield (a generator) is not supported in compiled code
# expect-col: 4
# expect-node: Yield
# expect-help: return an array filled in a loop
# expect-carets: 7
import gradc
from gradc import f64, i64


@gradc.export
def f(x: f64) -> f64:
    yield x  # error-here
