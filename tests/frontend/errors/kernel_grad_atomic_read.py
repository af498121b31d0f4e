# ruff: noqa
# expect-message: cannot differentiate cuda.atomic_add() in kernel 'total': the kernel also reads 'acc', which it atomically adds to (the derivative of that mix would depend on the order of the threads)
# expect-col: 8
# expect-node: Call
import gradc
from gradc import cuda, f64


@gradc.kernel
def total(x: f64[:], acc: f64[:]):
    i = cuda.grid(1)
    if i < x.shape[0]:
        cuda.atomic_add(acc, 0, x[i] * acc[i])  # error-here


d_total = gradc.grad(total, wrt="x")
