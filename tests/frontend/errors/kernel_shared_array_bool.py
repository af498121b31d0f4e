# ruff: noqa
# expect-message: cuda.shared_array() holds numbers, not bool
# expect-col: 31
# expect-node: Name
import gradc
from gradc import cuda, f64


@gradc.kernel
def k(x: f64[:]):
    buf = cuda.shared_array(4, bool)  # error-here
    x[cuda.grid(1)] = buf[0]
