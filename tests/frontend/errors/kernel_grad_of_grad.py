# ruff: noqa
# expect-message: 'd_k' is a derivative kernel; it cannot be differentiated again
# expect-col: 7
# expect-node: Call
import gradc
from gradc import cuda, f64


@gradc.kernel
def k(x: f64[:], y: f64[:]):
    i = cuda.grid(1)
    if i < x.shape[0]:
        y[i] = x[i] * x[i]


d_k = gradc.grad(k, wrt="x")
dd_k = gradc.jvp(d_k, wrt="x")  # error-here
