import gradc
from gradc import f64

from . import helpers
from .helpers import f


@gradc.export
def m(x: f64) -> f64:
    return f(x) * helpers.f(2 * x)


CASES = {"m": [(0.0,), (1.5,)]}
