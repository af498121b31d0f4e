# ruff: noqa
# expect-message: kernel 'k' returns None: annotate it '-> None' or not at all
# expect-col: 28
# expect-node: Name
import gradc
from gradc import cuda, f64


@gradc.kernel
def k(x: f64[:], y: f64) -> f64:  # error-here
    return y
