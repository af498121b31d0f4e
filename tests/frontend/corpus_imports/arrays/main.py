import numpy as np
from helpers import scaled, sumsq

import gradc
from gradc import f64


@gradc.export
def norm2(a: f64[:]) -> f64:
    return sumsq(scaled(a, 2.0))


@gradc.export
def double(a: f64[:]) -> f64[:]:
    return scaled(a, 2.0)


CASES = {
    "norm2": [(np.array([1.0, 2.0, -3.0]),), (np.zeros(0),)],
    "double": [(np.array([0.5, -1.5]),)],
}
