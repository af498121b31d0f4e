# ruff: noqa
# expect-message: cannot differentiate cuda.atomic_add() in kernel 'total': derivatives of barriers, shared arrays and atomics are not supported
# expect-col: 8
# expect-node: Call
import gradc
from gradc import cuda, f64


@gradc.kernel
def total(x: f64[:], acc: f64[:]):
    i = cuda.grid(1)
    if i < x.shape[0]:
        cuda.atomic_add(acc, 0, x[i] * x[i])  # error-here


d_total = gradc.grad(total, wrt="x")
