import helpers
import helpers as h

import gradc
from gradc import f64


def f(x):  # the same name as helpers.f: the two must not clash
    return x - 1


@gradc.export
def c(x: f64) -> f64:
    return f(x) + helpers.f(x) + h.f(x + 1) + h.SCALE * helpers.SCALE


CASES = {"c": [(0.0,), (2.5,), (-1.25,)]}
