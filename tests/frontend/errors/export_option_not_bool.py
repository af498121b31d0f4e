# ruff: noqa
# expect-message: gradc.export option fastmath= takes True or False (a literal)
# expect-col: 23
# expect-node: Constant
# expect-carets: 1
import gradc
from gradc import f64


@gradc.export(fastmath=1)  # error-here
def f(x: f64) -> f64:
    return x * x
