# ruff: noqa
# expect-message: the shape of cuda.shared_array() is a positive constant int or a tuple of them
# expect-col: 28
# expect-node: Subscript
import gradc
from gradc import cuda, f64


@gradc.kernel
def k(x: f64[:]):
    buf = cuda.shared_array(x.shape[0], f64)  # error-here
    x[cuda.grid(1)] = buf[0]
