# ruff: noqa
# expect-message: unsupported expression 'ListComp'
# expect-col: 9
# expect-node: ListComp
import gradc
from gradc import f64, i64


@gradc.export
def f(x: f64) -> f64:
    ys = [x * i for i in range(3)]  # error-here
    return x
