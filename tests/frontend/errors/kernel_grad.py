# ruff: noqa
# expect-message: kernel 'k' cannot be differentiated yet (derivatives of @gradc.kernel functions are later work)
# expect-col: 6
# expect-node: Call
import gradc
from gradc import cuda, f64


@gradc.kernel
def k(x: f64[:], y: f64):
    x[cuda.grid(1)] = y


d_k = gradc.grad(k)  # error-here
