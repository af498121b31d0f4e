from helpers import OFFSET, SCALE, f, square
from helpers import f as g

import gradc
from gradc import f64, i64

K = SCALE * 4  # folded from an imported constant


@gradc.export
def a(x: f64) -> f64:
    return f(x) + g(2.0 * x) + K


@gradc.export
def b(x: f64, n: i64):
    return square(x) + square(n), square(n), OFFSET


CASES = {
    "a": [(0.0,), (1.5,), (-3.25,)],
    "b": [(1.5, 3), (-2.0, -7)],
}
