# ruff: noqa
# expect-message: cannot differentiate kernel 'k' with respect to 'n' of type i64: only float scalars and float arrays have derivatives
# expect-col: 6
# expect-node: Call
import gradc
from gradc import cuda, f64, i64


@gradc.kernel
def k(x: f64[:], n: i64, y: f64[:]):
    i = cuda.grid(1)
    if i < n:
        y[i] = x[i] * n


d_k = gradc.grad(k, wrt=("x", "n"))  # error-here
