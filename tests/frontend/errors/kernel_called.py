# ruff: noqa
# expect-message: kernel 'k' cannot be called: it is launched, k[grid, block](...), from the host
# expect-col: 4
# expect-node: Call
import gradc
from gradc import cuda, f64


@gradc.kernel
def k(x: f64[:]):
    x[cuda.grid(1)] = 1.0


@gradc.export
def f(x: f64[:]) -> None:
    k(x)  # error-here
