# ruff: noqa
# expect-message: 'f' has no signature whose differentiated parameters are floats (its signatures take (i64), (i32))
# expect-col: 5
# expect-node: Call
# expect-help: add a float signature
import gradc


@gradc.export(["i64(i64)", "i32(i32)"])
def f(x):
    return x * x


df = gradc.grad(f)  # error-here
