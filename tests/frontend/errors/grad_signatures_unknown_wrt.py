# ruff: noqa
# expect-message: 'f' has no parameter 'z'
# expect-col: 23
# expect-node: Constant
# expect-carets: 3
import gradc


@gradc.export(["f64(f64, f64)", "f32(f32, f32)"])
def f(x, y):
    return x * x * y


df = gradc.grad(f, wrt="z")  # error-here
