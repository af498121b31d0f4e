# ruff: noqa
# expect-message: invalid signature string
# expect-col: 1|14
# expect-node: Call|Constant
import gradc


@gradc.export("f64(f64")  # error-here
def f(x):
    return x
