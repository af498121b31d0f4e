# ruff: noqa
# expect-message: wrt selects no parameter of 'f'
# expect-col: 24
# expect-node: Tuple
import gradc
from gradc import f64


@gradc.export
def f(x: f64) -> f64:
    return x * x


d_f = gradc.grad(f, wrt=())  # error-here
