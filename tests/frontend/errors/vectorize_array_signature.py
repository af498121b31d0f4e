# ruff: noqa
# expect-message: a vectorised function takes and returns scalars
# expect-col: 1
# expect-node: Call
import gradc


@gradc.vectorize("f64(f64[:])")  # error-here
def f(x):
    return x[0]
