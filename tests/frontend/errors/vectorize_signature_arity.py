# ruff: noqa
# expect-message: signature string 'f64(f64)' has 1 parameter types but 'f' takes 2 parameters (at least one)
# expect-col: 1
# expect-node: Call
import gradc


@gradc.vectorize("f64(f64)")  # error-here
def f(x, y):
    return x + y
