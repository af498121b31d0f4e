# ruff: noqa
# expect-message: @gradc.export cannot be applied to nested function 'g'
# expect-col: 5
# expect-node: Call
import gradc
from gradc import f64


def outer(x: f64) -> f64:
    @gradc.export("f64(f64)")  # error-here
    def g(y):
        return y

    return x
