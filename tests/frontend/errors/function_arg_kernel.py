# ruff: noqa
# expect-message: kernel 'k' cannot be passed as an argument
# expect-col: 12
# expect-node: Name
import gradc
from gradc import cuda, f64


@gradc.kernel
def k(x: f64[:]):
    x[cuda.grid(1)] = 1.0


def _launch(kernel, x):
    kernel(x)


@gradc.export
def f(x: f64[:]) -> None:
    _launch(k, x)  # error-here
