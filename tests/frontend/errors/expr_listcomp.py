# ruff: noqa
# expect-message: a list comprehension is not supported in compiled code
# expect-col: 9
# expect-node: ListComp
# expect-help: np.empty(n) and fill it in a for loop
# expect-carets: 25
import gradc
from gradc import f64, i64


@gradc.export
def f(x: f64) -> f64:
    ys = [x * i for i in range(3)]  # error-here
    return x
