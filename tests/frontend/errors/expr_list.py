# ruff: noqa
# expect-message: a list literal is not supported in compiled code
# expect-col: 9
# expect-node: List
# expect-help: np.empty(n) or np.zeros(n) and assign its elements
# expect-carets: 6
import gradc
from gradc import f64, i64


@gradc.export
def f(x: f64) -> f64:
    ys = [x, x]  # error-here
    return x
