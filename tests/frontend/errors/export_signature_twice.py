# ruff: noqa
# expect-message: signature 'f32(f64)' takes the same parameter types as an earlier one of 'f'
# expect-col: 27
# expect-node: Constant
# expect-carets: 10
import gradc


@gradc.export(["f64(f64)", "f32(f64)"])  # error-here
def f(x):
    return x * x
