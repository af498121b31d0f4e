# ruff: noqa
# expect-message: cannot differentiate cuda.atomic_add() in kernel 'total': the old value it returns is used, and its derivative would depend on the order of the threads
# expect-col: 14
# expect-node: Call
import gradc
from gradc import cuda, f64


@gradc.kernel
def total(x: f64[:], acc: f64[:], out: f64[:]):
    i = cuda.grid(1)
    if i < x.shape[0]:
        old = cuda.atomic_add(acc, 0, x[i] * x[i])  # error-here
        out[i] = old * x[i]


d_total = gradc.grad(total, wrt="x")
