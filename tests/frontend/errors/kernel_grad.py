# ruff: noqa
# expect-message: gradc.vjp of kernel 'k' is not supported: kernels have gradc.grad (reverse mode) and gradc.jvp (forward mode)
# expect-col: 6
# expect-node: Call
import gradc
from gradc import cuda, f64


@gradc.kernel
def k(x: f64[:], y: f64):
    x[cuda.grid(1)] = y


d_k = gradc.vjp(k)  # error-here
