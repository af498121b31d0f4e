# ruff: noqa
# expect-message: cuda.grid() is available only in the body of a @gradc.kernel function
# expect-col: 8
# expect-node: Call
import gradc
from gradc import cuda, f64


@gradc.export
def f(x: f64) -> f64:
    i = cuda.grid(1)  # error-here
    return x + i
