# ruff: noqa
# expect-message: cuda.thread_idx is read by component: cuda.thread_idx.x, .y or .z
# expect-col: 8
# expect-node: Attribute
import gradc
from gradc import cuda, f64


@gradc.kernel
def k(x: f64[:]):
    t = cuda.thread_idx  # error-here
    x[0] = 1.0
