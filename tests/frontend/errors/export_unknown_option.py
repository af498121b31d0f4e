# ruff: noqa
# expect-message: gradc.export has no option 'nopython='; its options are fastmath=, boundscheck=
# expect-col: 14
# expect-node: keyword
# expect-carets: 13
import gradc
from gradc import f64


@gradc.export(nopython=True)  # error-here
def f(x: f64) -> f64:
    return x * x
