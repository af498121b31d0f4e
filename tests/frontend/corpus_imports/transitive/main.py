from a import f as af

import gradc
from gradc import f64, i64


def f(x):
    return af(x) * 2


@gradc.export
def t(x: f64, n: i64):
    return f(x), f(n)


CASES = {"t": [(0.5, 2), (-1.0, -3)]}
