# ruff: noqa
# expect-message: only integers, slices (`:`), ellipsis (`...`), numpy.newaxis (`None`) and integer or boolean arrays are valid indices
import gradc
from gradc import f64


@gradc.export
def f(a: f64[:], x: f64) -> f64:
    b = a[x:]  # error-here
    return b[0]
