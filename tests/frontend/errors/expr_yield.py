# ruff: noqa
# expect-message: unsupported expression 'Yield'
# expect-col: 4
# expect-node: Yield
import gradc
from gradc import f64, i64


@gradc.export
def f(x: f64) -> f64:
    yield x  # error-here
